"""The embedded SearchIndex: items kept in memory, served by a SparseUnitIndex for units and
candidates and an EmbeddedVectorIndex for kNN, both rebuilt lazily after writes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from scicustom.adapters.embedded_vector_index import EmbeddedVectorIndex
from scicustom.adapters.indexed_items import check_vector, checked_items
from scicustom.adapters.sparse_unit_index import SparseUnitIndex
from scicustom.core.build.candidates import Candidate
from scicustom.ports import IndexedItem


class EmbeddedSearchIndex:
    def __init__(self, unit_ids: Sequence[str], dims: int) -> None:
        self.unit_ids = list(unit_ids)
        self.dims = dims
        self._items: dict[str, IndexedItem] = {}
        self._units: SparseUnitIndex | None = None
        self._vectors: EmbeddedVectorIndex | None = None

    def index_items(self, items: Sequence[IndexedItem]) -> int:
        checked = checked_items(items, set(self.unit_ids), self.dims)
        for item in checked:
            self._items[item.id] = item
        self._units = self._vectors = None
        return len(checked)

    def delete_items(self, item_ids: Sequence[str]) -> int:
        removed = sum(self._items.pop(i, None) is not None for i in dict.fromkeys(item_ids))
        if removed:
            self._units = self._vectors = None
        return removed

    def item(self, item_id: str) -> IndexedItem:
        return self._items[item_id]

    def _unit_index(self) -> SparseUnitIndex:
        if self._units is None:
            tags = {i: [(u, 1.0) for u in it.units] for i, it in self._items.items()}
            self._units = SparseUnitIndex.from_tags(tags, self.unit_ids)
        return self._units

    def item_ids(self) -> list[str]:
        return self._unit_index().item_ids()

    def items_with_units(self, unit_ids: Sequence[str]) -> dict[str, list[str]]:
        return self._unit_index().items_with_units(unit_ids)

    def unit_counts(self) -> dict[str, int]:
        return self._unit_index().unit_counts()

    def ordered_candidates(self, voted_units: Sequence[str], consensus: Mapping[str, float], *,
                           limit: int | None = None, after: Candidate | None = None) -> list[Candidate]:
        return self._unit_index().ordered_candidates(voted_units, consensus, limit=limit, after=after)

    def nearest(self, vector: np.ndarray, k: int) -> list[tuple[str, float]]:
        check_vector(np.asarray(vector, dtype=np.float32).reshape(-1), self.dims, "query")
        if k < 0:
            raise ValueError("k must be >= 0")
        if not self._items:
            return []
        if self._vectors is None:
            ids = sorted(self._items)
            self._vectors = EmbeddedVectorIndex(ids, np.stack([self._items[i].embedding for i in ids]))
        return self._vectors.nearest(vector, k)
