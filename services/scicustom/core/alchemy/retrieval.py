"""Top-K retrieval of similar recipes by their key contributions (AlchemyBench section 5.1): cosine
similarity of sentence embeddings through the Embedder port (the packaged MiniLM by default, where
the paper used text-embedding-3-large)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from scicustom.ports import Embedder


@dataclass(frozen=True)
class LibraryRecipe:
    id: str
    contribution: str
    recipe: str


@dataclass(frozen=True)
class Retrieved:
    recipe: LibraryRecipe
    score: float


class RecipeLibrary:
    def __init__(self, recipes: Sequence[LibraryRecipe], embedder: Embedder) -> None:
        self.recipes = tuple(recipes)
        self._embedder = embedder
        self._vectors = embedder.encode([r.contribution for r in self.recipes])

    def __len__(self) -> int:
        return len(self.recipes)

    def top_k_many(self, queries: Sequence[tuple[str, str]], k: int) -> list[list[Retrieved]]:
        """For each (query id, contribution): the k most similar recipes, best first.

        A recipe with the query's own id is never returned: a paper must not retrieve itself.
        Ties keep library order.
        """
        if k <= 0 or not queries:
            return [[] for _ in queries]
        scores = self._embedder.encode([text for _, text in queries]) @ self._vectors.T
        out = []
        for (query_id, _), row in zip(queries, np.atleast_2d(scores), strict=True):
            order = np.argsort(-row, kind="stable")
            picked = [Retrieved(self.recipes[i], float(row[i])) for i in order
                      if self.recipes[i].id != query_id][:k]
            out.append(picked)
        return out
