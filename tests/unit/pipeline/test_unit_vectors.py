"""The units' description vectors are encoded once per world and shared by the vote's minilm-units
ranker and the relevance evidence, without changing what the ranker ranks."""

from __future__ import annotations

import numpy as np

from scicustom.core.build.local_judges import EmbeddingUnitRanker
from scicustom.core.build.unit_vectors import UnitDescriptionVectors
from scicustom.core.requirement import Requirement
from scicustom.core.units import KnowledgeUnit
from tests.support.hashing_embedder import HashingEmbedder

UNITS = [KnowledgeUnit("a", "Enzyme kinetics", "biology", ("Michaelis", "Vmax")),
         KnowledgeUnit("b", "Virology", "biology", ("capsid", "virus")),
         KnowledgeUnit("c", "Optics", "physics", ("lens", "refraction"))]


class _CountingEmbedder(HashingEmbedder):
    def __init__(self) -> None:
        super().__init__()
        self.calls: list[int] = []

    def encode(self, texts):  # type: ignore[no-untyped-def]
        self.calls.append(len(texts))
        return super().encode(texts)


def test_the_set_encodes_its_units_once_and_a_different_list_afresh():
    embedder = _CountingEmbedder()
    vectors = UnitDescriptionVectors(embedder, UNITS)
    first = vectors.of(UNITS)
    assert vectors.of(UNITS) is first and vectors.matrix() is first and embedder.calls == [3]
    np.testing.assert_array_equal(first, HashingEmbedder().encode([u.describe() for u in UNITS]))
    subset = vectors.of(UNITS[1:])
    assert embedder.calls == [3, 2]
    np.testing.assert_array_equal(subset, first[1:])


def test_a_ranker_reading_shared_vectors_ranks_as_one_that_encodes_them():
    requirement = Requirement("v", "virology", "Questions on the virus capsid.")
    embedder = _CountingEmbedder()
    shared = UnitDescriptionVectors(embedder, UNITS)
    ranker = EmbeddingUnitRanker(embedder, min_top_z=None, unit_vectors=shared)
    alone = EmbeddingUnitRanker(HashingEmbedder(), min_top_z=None)
    assert ranker.rank_units(requirement, UNITS) == alone.rank_units(requirement, UNITS)
    ranker.rank_units(requirement, UNITS)
    assert embedder.calls.count(3) == 1  # the units once; the requirement's text each time
