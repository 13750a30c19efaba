"""The embedded UnitIndex: items x units as a scipy CSR matrix of tagger scores, persisted as .npz."""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence

import numpy as np
from scipy import sparse

from scicustom.adapters.candidate_query import check_cursor, check_page, distinct_voted_units, page_after
from scicustom.core.build.candidates import Candidate, order_candidates
from scicustom.ports import ObjectStore


class SparseUnitIndex:
    def __init__(self, item_ids: Sequence[str], unit_ids: Sequence[str], matrix: sparse.csr_matrix) -> None:
        self._last_order: tuple[tuple[tuple[str, ...], tuple[float, ...]], list[Candidate]] | None = None
        if matrix.shape != (len(item_ids), len(unit_ids)):
            raise ValueError(f"matrix shape {matrix.shape} != ({len(item_ids)}, {len(unit_ids)})")
        self._item_ids = list(item_ids)
        self._unit_ids = list(unit_ids)
        self._unit_col = {u: i for i, u in enumerate(self._unit_ids)}
        self.matrix = matrix.tocsc()

    @classmethod
    def from_tags(cls, tags: Mapping[str, Sequence[tuple[str, float]]], unit_ids: Sequence[str]) -> SparseUnitIndex:
        item_ids = sorted(tags)
        col = {u: i for i, u in enumerate(unit_ids)}
        rows, cols, vals = [], [], []
        for r, item in enumerate(item_ids):
            for unit, score in tags[item]:
                rows.append(r)
                cols.append(col[unit])
                vals.append(score)
        matrix = sparse.csr_matrix((np.asarray(vals, dtype=np.float32), (rows, cols)),
                                   shape=(len(item_ids), len(unit_ids)))
        return cls(item_ids, unit_ids, matrix)

    def item_ids(self) -> list[str]:
        return list(self._item_ids)

    def items_with_units(self, unit_ids: Sequence[str]) -> dict[str, list[str]]:
        """Each item carrying at least one of `unit_ids`, with the shared units in the given order."""
        shared: dict[str, list[str]] = {}
        for unit in unit_ids:
            col = self._unit_col.get(unit)
            if col is None:
                continue
            start, end = self.matrix.indptr[col], self.matrix.indptr[col + 1]
            for row in self.matrix.indices[start:end]:
                shared.setdefault(self._item_ids[row], []).append(unit)
        return shared

    def unit_counts(self) -> dict[str, int]:
        counts = np.diff(self.matrix.indptr)
        return {u: int(c) for u, c in zip(self._unit_ids, counts, strict=True)}

    def ordered_candidates(self, voted_units: Sequence[str], consensus: Mapping[str, float], *,
                           limit: int | None = None, after: Candidate | None = None) -> list[Candidate]:
        voted = distinct_voted_units(voted_units, consensus)
        check_page(limit)
        if after is not None:
            check_cursor(after, voted, consensus)
        # A client paging through one query asks for the same order again and again: keep the last.
        key = (tuple(voted), tuple(float(consensus[u]) for u in voted))
        if self._last_order is None or self._last_order[0] != key:
            self._last_order = (key, order_candidates(self.items_with_units(voted), consensus))
        return page_after(self._last_order[1], limit, after)

    def save(self, store: ObjectStore, key: str) -> None:
        csr = self.matrix.tocsr()
        sink = io.BytesIO()
        np.savez_compressed(sink, data=csr.data, indices=csr.indices, indptr=csr.indptr,
                            shape=np.asarray(csr.shape), item_ids=np.asarray(self._item_ids),
                            unit_ids=np.asarray(self._unit_ids))
        store.put_bytes(key, sink.getvalue())

    @classmethod
    def load(cls, store: ObjectStore, key: str) -> SparseUnitIndex:
        with np.load(io.BytesIO(store.get_bytes(key))) as z:
            matrix = sparse.csr_matrix((z["data"], z["indices"], z["indptr"]), shape=tuple(z["shape"]))
            return cls([str(i) for i in z["item_ids"]], [str(u) for u in z["unit_ids"]], matrix)
