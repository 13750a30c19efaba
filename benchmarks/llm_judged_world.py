"""The synthetic build world of the chaos tests (tests/support/synthetic_world.py: four units, 240
items, hashing embeddings, so CPU stays small) with the requirement's LLM judges when a build asks
for them, wired as app/build/world.py wires them for the real corpus: the voting judges replace the
local unit rankers, the relevance judges join the offline relevance jury, the MCQ writer writes the
open items' questions. A third of the items are open, so the writer is called too."""

from __future__ import annotations

from typing import Any

from scicustom.app.build.request import JuryOptions
from scicustom.core.build.llm_judges import LLMMCQWriter, LLMRelevanceJudge, LLMUnitRanker
from scicustom.core.build.pipeline import BuildWorld
from scicustom.core.build.vote import VoteResult
from scicustom.core.requirement import Requirement
from scicustom.ports import LLM, RelevanceJudge
from tests.support.synthetic_world import synthetic_world

WORLD_NAME = "synthetic (tests/support/synthetic_world.py: 4 units, 240 items, a third open)"
VERSIONS = {"n_items": 240, "corpus": "synthetic"}


class LLMJudgedSyntheticWorlds:
    """`Worlds` for BuildStageHandler: each stage gets a freshly assembled world, as in the chaos tests."""

    def __init__(self, llm: LLM) -> None:
        self.llm = llm

    def get(self, requirement: Requirement, seed: int, jury: JuryOptions) -> tuple[BuildWorld, dict[str, Any]]:
        world = synthetic_world(open_items=True)
        if not jury.llm_judges:
            return world, VERSIONS
        frequency = world.index.unit_counts()
        world.unit_rankers = [LLMUnitRanker(self.llm, j.litellm_model, frequency) for j in requirement.voting_judges]
        judges: list[RelevanceJudge] = [LLMRelevanceJudge(self.llm, j.litellm_model)
                                        for j in requirement.relevance_judges]
        offline = world.relevance_jury

        def relevance(req: Requirement, votes: VoteResult | None) -> list[RelevanceJudge]:
            return [*offline(req, votes), *judges]

        world.relevance_jury = relevance
        if requirement.mcq_writer:
            world.mcq_writer = LLMMCQWriter(self.llm, requirement.mcq_writer.litellm_model)
        return world, VERSIONS
