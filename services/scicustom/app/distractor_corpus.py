"""The corpus as a build sees it for offline distractors: the items a build can draw from (embedded
and tagged by the current tagger), their scientific units and stored vectors."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from scicustom.app.build.neighbour_answers import NeighbourAnswers
from scicustom.app.components import Components
from scicustom.core.corpus_item import CorpusItem
from scicustom.ports import Embedder


@dataclass
class DistractorCorpus:
    item_units: dict[str, list[str]]  # item id -> its tagged scientific units, best first
    row_of: dict[str, int]
    matrix: np.ndarray
    neighbours: NeighbourAnswers
    embedder: Embedder

    @classmethod
    def load(cls, components: Components, corpus_items: Sequence[CorpusItem]) -> DistractorCorpus:
        """PreconditionFailed while the corpus is not tagged."""
        tags = components.corpus.load_tags(components.current_index()["tagger_version"])
        embedder = components.embedder
        ids, matrix = components.corpus.load_embeddings(embedder.name)
        row_of = {item_id: row for row, item_id in enumerate(ids)}
        items = {it.id: it for it in corpus_items if it.id in row_of and it.id in tags}
        scientific = {u.id for u in components.catalog.scientific()}
        item_units = {i: [u for u, _ in units if u in scientific] for i, units in tags.items() if i in items}
        return cls(item_units, row_of, matrix, NeighbourAnswers(components.unit_index, items, row_of, matrix),
                   embedder)

    def vector(self, item: CorpusItem) -> np.ndarray:
        """The stored embedding, or the embedder's vector of the item's text for an item without one."""
        row = self.row_of.get(item.id)
        if row is not None:
            return np.asarray(self.matrix[row])
        return np.asarray(self.embedder.encode([item.text])[0])

    def answers(self, item: CorpusItem, units: Sequence[str] | None = None) -> list[str]:
        """Neighbour answers of the item; `units` None = its tagged scientific units."""
        chosen = self.item_units.get(item.id, []) if units is None else list(units)
        return self.neighbours(item.id, chosen, self.vector(item))
