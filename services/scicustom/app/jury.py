"""The voting and relevance judges of a build, asked on their own (JuryService's use case).

The judges come from the world a build assembles (world_cache.WorldCache over world.assemble_world)
and vote through the same `BuildPipeline.vote`; a verdict's majority is the cutoff search's
(`core.build.cutoff.Probe`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from scicustom.app.build.request import MAX_K1, JuryOptions
from scicustom.app.build.world_cache import WorldCache
from scicustom.app.field_checks import bounded, checked_list, checked_seed
from scicustom.core.build.cutoff import Probe
from scicustom.core.build.pipeline import MIN_JURY, BuildPipeline, BuildWorld
from scicustom.core.build.vote import VoteResult
from scicustom.core.corpus_item import CorpusItem
from scicustom.core.errors import InvalidInput, NotFound
from scicustom.core.requirement import Requirement

MAX_ITEMS = 100

StillWanted = Callable[[], None]  # raises when the caller has gone (a passed deadline)


@dataclass(frozen=True)
class JudgeRanking:
    judge: str
    kind: str
    unit_ids: list[str]


@dataclass(frozen=True)
class VotedUnit:
    unit_id: str
    unit_name: str
    consensus_rank: float


@dataclass(frozen=True)
class UnitVote:
    requirement_name: str
    rankings: list[JudgeRanking]
    voted_units: list[VotedUnit]
    candidate_units: int  # units any judge could rank; a judge's missing unit counts one rank beyond


@dataclass(frozen=True)
class ItemVerdict:
    item_id: str
    votes: dict[str, bool]  # judge -> relevant, in jury order
    relevant: bool          # a strict majority


@dataclass(frozen=True)
class RelevanceVerdicts:
    judges: list[str]
    voted_unit_ids: list[str]
    items: list[ItemVerdict]


class Jury:
    def __init__(self, worlds: WorldCache) -> None:
        self.worlds = worlds

    def rank_units(self, requirement: Requirement, options: JuryOptions, k1: int,
                   still_wanted: StillWanted) -> UnitVote:
        """`k1` 0 takes the requirement's."""
        kept = bounded(k1, "k1", MAX_K1, requirement.k1)
        world, _ = self.worlds.get(requirement, 0, options)  # voting does not read the seed
        still_wanted()
        votes = BuildPipeline(world).vote(requirement, kept)
        return UnitVote(
            requirement.name,
            [JudgeRanking(j.name, j.kind, list(votes.per_judge[j.name])) for j in world.unit_rankers],
            [VotedUnit(u, world.catalog.by_id(u).name, votes.consensus[u]) for u in votes.units],
            len(votes.consensus))

    def judge_relevance(self, requirement: Requirement, options: JuryOptions, item_ids: Sequence[str], k1: int,
                        seed: int, voted_unit_ids: Sequence[str], still_wanted: StillWanted) -> RelevanceVerdicts:
        """`voted_unit_ids` empty: the jury votes first, as a build does before its cutoff."""
        checked_list(item_ids, "item_ids", MAX_ITEMS)
        kept = bounded(k1, "k1", MAX_K1, requirement.k1)
        world, _ = self.worlds.get(requirement, checked_seed(seed), options)
        items = _items(world, item_ids)
        if voted_unit_ids:
            checked_list(voted_unit_ids, "voted_unit_ids", MAX_K1)
            votes = _given_votes(world, list(voted_unit_ids))
        else:
            still_wanted()
            votes = BuildPipeline(world).vote(requirement, kept)
        jury = world.relevance_jury(requirement, votes)
        if len(jury) < MIN_JURY:
            raise InvalidInput("relevance_judges", f"the jury needs at least {MIN_JURY} judges")
        verdicts = []
        for position, item in enumerate(items):
            still_wanted()  # LLM judges take seconds per item
            probe = Probe(position, item.id, {j.name: bool(j.is_relevant(requirement, item)) for j in jury})
            verdicts.append(ItemVerdict(item.id, dict(probe.votes), probe.relevant))
        return RelevanceVerdicts([j.name for j in jury], list(votes.units), verdicts)


def _items(world: BuildWorld, item_ids: Sequence[str]) -> list[CorpusItem]:
    items = []
    for i, item_id in enumerate(item_ids):
        if item_id not in world.items:
            raise NotFound(f"item_ids[{i}]", f"{item_id!r} is not a tagged corpus item")
        items.append(world.items[item_id])
    return items


def _given_votes(world: BuildWorld, unit_ids: list[str]) -> VoteResult:
    """The caller's voted units (best first) as a vote; the relevance jury reads only their order."""
    scientific = {u.id for u in world.catalog.scientific()}
    for i, unit in enumerate(unit_ids):
        if unit not in scientific:
            raise InvalidInput(f"voted_unit_ids[{i}]", f"{unit!r} is not a scientific unit of the unit set")
        if unit in unit_ids[:i]:
            raise InvalidInput(f"voted_unit_ids[{i}]", f"{unit!r} repeats")
    return VoteResult(tuple(unit_ids), {u: float(rank) for rank, u in enumerate(unit_ids, start=1)}, {})
