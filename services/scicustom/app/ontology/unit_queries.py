"""Look-ups in the unit set builds use: a page of units, one unit, a unit's keywords K_v (the unit
set's own, else those `ontology keywords` derived for the default units)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scicustom.app.field_checks import bounded
from scicustom.core.errors import InvalidInput, NotFound, PreconditionFailed
from scicustom.core.units import KnowledgeUnit, UnitCatalog

MAX_PAGE = 1000
DEFAULT_PAGE = 100


@dataclass(frozen=True)
class UnitPage:
    units: list[KnowledgeUnit]
    next_page_token: str  # empty on the last page
    total_size: int
    units_version: str


@dataclass(frozen=True)
class UnitKeywords:
    unit: KnowledgeUnit
    keywords: list[str]
    derived: bool  # False: the unit set lists them
    anchors: list[dict[str, Any]]  # the derived keywords' anchors (source, node_id, label, method, score)


class DerivedKeywords:
    """The units of the keywords file `ontology keywords` writes for the default set, by id;
    re-read when the file changes."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._read: tuple[int, dict[str, Any]] | None = None  # (file mtime_ns, units by id)

    def units(self) -> dict[str, Any]:
        try:
            stamp = self.path.stat().st_mtime_ns
        except FileNotFoundError:
            return {}
        if self._read is None or self._read[0] != stamp:
            units = json.loads(self.path.read_text(encoding="utf-8"))["knowledge_units"]
            self._read = (stamp, {str(u["id"]): u for u in units})
        return self._read[1]


def unit_page(catalog: UnitCatalog, page_size: int, page_token: str) -> UnitPage:
    """`page_size` 0 means DEFAULT_PAGE; `page_token` is the last unit id of the previous page."""
    size = bounded(page_size, "page_size", MAX_PAGE, DEFAULT_PAGE)
    start = 0
    if page_token:
        try:
            start = catalog.index_of(page_token) + 1
        except KeyError:
            raise InvalidInput("page_token", "is not a token this service returned") from None
    page = catalog.units[start:start + size]
    token = page[-1].id if start + size < len(catalog) else ""
    return UnitPage(units=list(page), next_page_token=token, total_size=len(catalog),
                    units_version=catalog.version)


def unit_of(catalog: UnitCatalog, unit_id: str) -> KnowledgeUnit:
    if not unit_id:
        raise InvalidInput("unit_id", "is empty")
    try:
        return catalog.by_id(unit_id)
    except KeyError:
        raise NotFound("unit_id", f"no unit {unit_id!r} in the unit set") from None


def keywords_of(catalog: UnitCatalog, unit_id: str, derived: DerivedKeywords) -> UnitKeywords:
    unit = unit_of(catalog, unit_id)
    if any(u.keywords for u in catalog.units):  # the unit set carries keywords: they are the K_v
        return UnitKeywords(unit=unit, keywords=list(unit.keywords), derived=False, anchors=[])
    found = derived.units().get(unit.id)
    if found is None or found.get("name") != unit.name:
        raise PreconditionFailed(f"the unit set lists no keywords and none are derived for {unit.id}; "
                                 "run `scicustom ontology keywords`")
    return UnitKeywords(unit=unit, keywords=list(found.get("keywords", [])), derived=True,
                        anchors=list(found.get("anchors", [])))
