"""What `scicustom export` writes, as plain values: the questions of a finished build and the facts
about the build (requirement, voted units, licences, provenance) every export format carries."""
