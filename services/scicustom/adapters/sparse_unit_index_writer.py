"""The UnitIndexWriter port, embedded: a tagger's tags as a scipy-sparse unit index in the object store."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from scicustom.adapters.sparse_unit_index import SparseUnitIndex
from scicustom.ports import ObjectStore


class SparseUnitIndexWriter:
    def __init__(self, store: ObjectStore) -> None:
        self.store = store

    def write(self, key: str, tags: Mapping[str, Sequence[tuple[str, float]]], unit_ids: Sequence[str]) -> None:
        SparseUnitIndex.from_tags(tags, list(unit_ids)).save(self.store, key)
