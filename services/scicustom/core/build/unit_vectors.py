"""The embedder's vectors of the units' descriptions, encoded once per world.

A build's vote (the minilm-units ranker) reads the vectors of every scientific unit's description;
encoding the 641 of the default units takes about 9 s on 2 cores. A world encodes them once, on
first use, for every build it serves: a service's later builds, or `bench_relevance`'s 88
requirements, no longer encode them again.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np

from scicustom.core.units import KnowledgeUnit
from scicustom.ports import Embedder


class UnitDescriptionVectors:
    def __init__(self, embedder: Embedder, units: Sequence[KnowledgeUnit]) -> None:
        self._embedder = embedder
        self._units = tuple(units)
        self._ids = [u.id for u in self._units]
        self._matrix: np.ndarray | None = None
        self._lock = threading.Lock()

    def matrix(self) -> np.ndarray:
        """One row per unit, in the order given."""
        with self._lock:
            if self._matrix is None:
                self._matrix = self.encode(self._units)
            return self._matrix

    def of(self, units: Sequence[KnowledgeUnit]) -> np.ndarray:
        """Rows for `units`: the cached matrix when they are this set's units in its order (the same
        call the cache made, so the same vectors bit for bit); encoded afresh otherwise."""
        if [u.id for u in units] == self._ids:
            return self.matrix()
        return self.encode(units)

    def encode(self, units: Sequence[KnowledgeUnit]) -> np.ndarray:
        return self._embedder.encode([u.describe() for u in units])
