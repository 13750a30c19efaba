"""The minilm-units ranker encodes the units' descriptions once for every vote of its world, and
ranks as a ranker that encodes them afresh."""

from __future__ import annotations

from scicustom.core.build.local_judges import EmbeddingUnitRanker
from scicustom.core.requirement import Requirement
from scicustom.core.units import KnowledgeUnit
from tests.support.hashing_embedder import HashingEmbedder

UNITS = [KnowledgeUnit("a", "Enzyme kinetics", "biology", ("Michaelis", "Vmax")),
         KnowledgeUnit("b", "Virology", "biology", ("capsid", "virus")),
         KnowledgeUnit("c", "Optics", "physics", ("lens", "refraction"))]
VIROLOGY = Requirement("v", "virology", "Questions on the virus capsid.")
OPTICS = Requirement("o", "optics", "Questions on lenses and refraction.")


class _CountingEmbedder(HashingEmbedder):
    def __init__(self) -> None:
        super().__init__()
        self.calls: list[int] = []

    def encode(self, texts):  # type: ignore[no-untyped-def]
        self.calls.append(len(texts))
        return super().encode(texts)


def test_the_units_are_encoded_once_across_votes_and_a_different_list_afresh():
    embedder = _CountingEmbedder()
    ranker = EmbeddingUnitRanker(embedder, min_top_z=None)
    for requirement in (VIROLOGY, OPTICS, VIROLOGY):
        ranker.rank_units(requirement, UNITS)
    assert embedder.calls.count(3) == 1  # the units once; each requirement's text every time
    ranker.rank_units(OPTICS, UNITS[1:])
    assert embedder.calls[-1] == 2


def test_a_ranker_reusing_its_vectors_ranks_as_one_that_encodes_them():
    ranker = EmbeddingUnitRanker(HashingEmbedder(), min_top_z=None)
    for requirement in (VIROLOGY, OPTICS, VIROLOGY):
        fresh = EmbeddingUnitRanker(HashingEmbedder(), min_top_z=None)
        assert ranker.rank_units(requirement, UNITS) == fresh.rank_units(requirement, UNITS)
