"""TaggerService's use case: texts -> knowledge units (id, name, score), best first, through the
Tagger port; the request limits live here."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from scicustom.app.field_checks import checked_list, checked_text
from scicustom.core.errors import PreconditionFailed
from scicustom.core.units import UnitCatalog
from scicustom.ports import Tagger, UnitScore

MAX_BATCH = 256  # texts per TagBatch request


@dataclass(frozen=True)
class NamedUnitScore:
    unit_id: str
    unit_name: str
    score: float


@dataclass(frozen=True)
class TaggedTexts:
    tags: list[list[NamedUnitScore]]  # one row per text, in request order
    tagger_version: str


def tag_text(text: str, top_k: int, tagger: Callable[[], Tagger], catalog: Callable[[], UnitCatalog]) -> TaggedTexts:
    """One text; `top_k` = 0 keeps every unit the tagger assigns. The tagger and the catalog are
    asked for only once the request is valid."""
    checked_text(text, "text")
    return _tag([text], top_k, tagger(), catalog)


def tag_texts(texts: Sequence[str], top_k: int, tagger: Callable[[], Tagger],
              catalog: Callable[[], UnitCatalog]) -> TaggedTexts:
    """Up to MAX_BATCH texts in one tagger call, as one `tag_text` each would tag them."""
    checked_list(texts, "texts", MAX_BATCH)
    for i, text in enumerate(texts):
        checked_text(text, f"texts[{i}]")
    return _tag(list(texts), top_k, tagger(), catalog)


def _tag(texts: list[str], top_k: int, tagger: Tagger, catalog: Callable[[], UnitCatalog]) -> TaggedTexts:
    assigned = tagger.tag(texts)
    units = catalog()
    rows = [_named(units, row[:top_k] if top_k else row) for row in assigned]
    return TaggedTexts(rows, tagger.version)


def _named(catalog: UnitCatalog, units: list[UnitScore]) -> list[NamedUnitScore]:
    named = []
    for unit in units:
        try:
            name = catalog.by_id(unit.unit_id).name
        except KeyError:
            raise PreconditionFailed(f"the tagger assigns unit {unit.unit_id!r}, which the unit set "
                                     "does not have; tag with a tagger trained on this unit set") from None
        named.append(NamedUnitScore(unit.unit_id, name, unit.score))
    return named
