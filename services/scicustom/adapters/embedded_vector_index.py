"""The embedded VectorIndex: exact cosine over an in-memory float32 matrix (brute force)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from scicustom.adapters.indexed_items import check_vector


class EmbeddedVectorIndex:
    def __init__(self, item_ids: Sequence[str], vectors: np.ndarray) -> None:
        matrix = np.asarray(vectors, dtype=np.float32)
        if matrix.ndim != 2 or matrix.shape[0] != len(item_ids):
            raise ValueError(f"vectors of shape {matrix.shape} for {len(item_ids)} item ids")
        order = sorted(range(len(item_ids)), key=lambda i: item_ids[i])  # id order = the tie-break
        self._ids = [item_ids[i] for i in order]
        norms = np.linalg.norm(matrix[order], axis=1, keepdims=True)
        if np.any(norms == 0):
            raise ValueError("an item has a zero embedding; cosine is undefined for it")
        self._unit_rows = matrix[order] / norms
        self.dims = matrix.shape[1]

    def nearest(self, vector: np.ndarray, k: int) -> list[tuple[str, float]]:
        if k < 0:
            raise ValueError("k must be >= 0")
        query = np.asarray(vector, dtype=np.float32).reshape(-1)
        check_vector(query, self.dims, "query")
        sims = self._unit_rows @ (query / np.linalg.norm(query))
        top = np.argsort(-sims, kind="stable")[:k]  # stable over id-sorted rows: ties by id
        return [(self._ids[i], float(sims[i])) for i in top]
