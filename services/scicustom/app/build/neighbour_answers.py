"""Offline distractor sources (DESIGN §3): the answers of the corpus items nearest to an item among
those sharing a knowledge unit with it, nearest first.

This is the build's `neighbour_answers` (app/build/world.py) as a reusable object, so a build and
GeneratorService give an open item the same distractors: the candidates are the items of the unit
index carrying any of the item's units, restricted to `items` and without the item itself, ranked
by dot product of stored (normalised) embeddings, ties by item id, the first `limit` kept.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from scicustom.core.corpus_item import CorpusItem
from scicustom.ports import UnitIndex

NEIGHBOURS = 50  # nearest same-unit items considered for offline distractors


class NeighbourAnswers:
    def __init__(self, index: UnitIndex, items: Mapping[str, CorpusItem], row_of: Mapping[str, int],
                 matrix: np.ndarray, limit: int = NEIGHBOURS) -> None:
        """`items`: the items that may lend an answer, each with a row of `matrix` in `row_of`."""
        self._index = index
        self._items = items
        self._row_of = row_of
        self._matrix = matrix
        self._limit = limit

    def __call__(self, item_id: str, units: Sequence[str], vector: np.ndarray) -> list[str]:
        """Answers of the nearest items sharing one of `units` with the item `item_id` (at `vector`)."""
        shared = self._index.items_with_units(list(units))
        others = sorted(i for i in shared if i != item_id and i in self._items)
        if not others:
            return []
        sims = self._matrix[[self._row_of[i] for i in others]] @ vector
        nearest = sorted(range(len(others)), key=lambda k: (-float(sims[k]), others[k]))[: self._limit]
        return [self._items[others[k]].answer for k in nearest]
