"""Which unit set the trained tagger learns: the one given, else the keyword file that
`scicustom ontology keywords` writes (units with exclusive K_v), else the configured units."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from scicustom.core.units import UnitCatalog


def tagger_units(path: Path | None, keywords_file: Path, configured: Callable[[], UnitCatalog],
                 units_file: Path) -> tuple[UnitCatalog, str]:
    """The catalog and where it came from (recorded in the manifest); InvalidInput names `--units`."""
    if path is None:
        if not keywords_file.exists():
            return configured(), str(units_file)
        path = keywords_file
    return UnitCatalog.from_file(path, "--units"), str(path)
