"""Where the current unit index is recorded in the object store, for builds and the tagger alike."""

from __future__ import annotations

CURRENT_INDEX_KEY = "index/current.json"                # {"tagger_version", "index_key", "embedder"} builds use now
CALIBRATION_KEY = "index/zeroshot_calibration.json"    # the zero-shot tagger's calibrated threshold
