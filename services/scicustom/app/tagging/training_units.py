"""Which unit set the trained tagger learns: the one given, else the keyword file that
`scicustom ontology keywords` writes (units with exclusive K_v), else the configured units."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from scicustom.core.errors import InvalidInput
from scicustom.core.units import UnitCatalog


def tagger_units(path: Path | None, keywords_file: Path, configured: Callable[[], UnitCatalog],
                 units_file: Path) -> tuple[UnitCatalog, str]:
    """The catalog and where it came from (recorded in the manifest); InvalidInput names `--units`."""
    if path is None:
        if not keywords_file.exists():
            return configured(), str(units_file)
        path = keywords_file
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InvalidInput("--units", f"{path} does not exist") from None
    except json.JSONDecodeError as exc:
        raise InvalidInput("--units", f"{path} is not JSON: {exc}") from None
    return UnitCatalog.from_mapping(data), str(path)
