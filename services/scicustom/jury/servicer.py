"""JuryService: the voting and relevance judges of a build, over gRPC.

The judges come from the same `assemble_world` a build uses and vote through the same
`BuildPipeline.vote`; a verdict's majority is the cutoff search's (`core.cutoff.Probe`).
"""

from __future__ import annotations

import grpc

from scicustom.bootstrap import Context
from scicustom.builds.build_spec import MAX_TEXT_CHARS, requirement_from_yaml_text
from scicustom.builds.build_world import JuryOptions
from scicustom.core.build.cutoff import Probe
from scicustom.core.build.pipeline import MIN_JURY, BuildPipeline, BuildWorld
from scicustom.core.build.vote import VoteResult
from scicustom.core.errors import InvalidInput, NotFound
from scicustom.core.requirement import Requirement, requirement_from_mapping, requirement_from_text
from scicustom.grpc_server.field_checks import bounded, checked_list
from scicustom.grpc_server.server import ServiceBinding
from scicustom.grpc_server.status_mapping import check_deadline
from scicustom.jury.jury_worlds import JuryWorlds
from scicustom.jury.v1 import jury_pb2 as pb
from scicustom.jury.v1 import jury_pb2_grpc as pb_grpc

SERVICE_NAME = "scicustom.jury.v1.JuryService"
MAX_K1 = 100
MAX_ITEMS = 100
DEFAULT_QUANTILE = 0.95


def requirement_from_message(message: pb.Requirement, field: str = "requirement") -> Requirement:
    """Parse with the requirement code the CLI and BuildService use; problems name `field.<form>`."""
    form = message.WhichOneof("form")
    if form is None:
        raise InvalidInput(field, "give yaml, text or fields")
    if form == "yaml":
        return requirement_from_yaml_text(message.yaml, f"{field}.yaml")
    if form == "text":
        if len(message.text) > MAX_TEXT_CHARS:
            raise InvalidInput(f"{field}.text", f"is longer than {MAX_TEXT_CHARS} characters")
        try:
            return requirement_from_text(message.text)
        except InvalidInput as exc:
            raise InvalidInput(f"{field}.text", exc.problem) from None
    fields = message.fields
    if len(fields.description) > MAX_TEXT_CHARS:
        raise InvalidInput(f"{field}.fields.description", f"is longer than {MAX_TEXT_CHARS} characters")
    data = {"description": fields.description, "requirement": fields.name or None, "domain": fields.domain or None}
    try:
        return requirement_from_mapping(data)
    except InvalidInput as exc:
        raise InvalidInput(f"{field}.fields.{exc.field}", exc.problem) from None


def jury_options(message: pb.JuryOptions, requirement: Requirement) -> JuryOptions:
    quantile = message.relevance_quantile or DEFAULT_QUANTILE
    if not 0.5 <= quantile < 1:
        raise InvalidInput("jury.relevance_quantile", "must be in [0.5, 1)")
    if message.llm_judges and (not requirement.voting_judges or not requirement.relevance_judges):
        raise InvalidInput("jury.llm_judges", "the requirement lists no voting_judges/relevance_judges")
    return JuryOptions(llm_judges=message.llm_judges, relevance_quantile=quantile)


class JuryServicer(pb_grpc.JuryServiceServicer):
    def __init__(self, ctx: Context, worlds: JuryWorlds | None = None) -> None:
        self.ctx = ctx
        self.worlds = worlds or JuryWorlds(ctx)

    def RankUnits(self, request: pb.RankUnitsRequest, context: grpc.ServicerContext) -> pb.RankUnitsResponse:
        requirement = requirement_from_message(request.requirement)
        options = jury_options(request.jury, requirement)
        k1 = bounded(request.k1, "k1", MAX_K1, requirement.k1)
        world = self.worlds.get(requirement, 0, options)  # voting does not read the seed
        check_deadline(context)
        votes = BuildPipeline(world).vote(requirement, k1)
        return pb.RankUnitsResponse(
            requirement_name=requirement.name,
            rankings=[pb.JudgeRanking(judge=j.name, kind=j.kind, unit_ids=votes.per_judge[j.name])
                      for j in world.unit_rankers],
            voted_units=_voted_units(world, votes),
            missing_rank=len(votes.consensus) + 1, candidate_units=len(votes.consensus))

    def JudgeRelevance(self, request: pb.JudgeRelevanceRequest,
                       context: grpc.ServicerContext) -> pb.JudgeRelevanceResponse:
        requirement = requirement_from_message(request.requirement)
        options = jury_options(request.jury, requirement)
        checked_list(request.item_ids, "item_ids", MAX_ITEMS)
        k1 = bounded(request.k1, "k1", MAX_K1, requirement.k1)
        world = self.worlds.get(requirement, request.seed, options)
        items = []
        for i, item_id in enumerate(request.item_ids):
            if item_id not in world.items:
                raise NotFound(f"item_ids[{i}]", f"{item_id!r} is not a tagged corpus item")
            items.append(world.items[item_id])
        if request.voted_unit_ids:
            checked_list(request.voted_unit_ids, "voted_unit_ids", MAX_K1)
            votes = _given_votes(world, list(request.voted_unit_ids))
        else:
            check_deadline(context)
            votes = BuildPipeline(world).vote(requirement, k1)
        jury = world.relevance_jury(requirement, votes)
        if len(jury) < MIN_JURY:
            raise InvalidInput("relevance_judges", f"the jury needs at least {MIN_JURY} judges")
        verdicts = []
        for position, item in enumerate(items):
            check_deadline(context)  # LLM judges take seconds per item
            probe = Probe(position, item.id, {j.name: bool(j.is_relevant(requirement, item)) for j in jury})
            verdicts.append(pb.ItemVerdict(
                item_id=item.id, verdicts=[pb.JudgeVerdict(judge=j, relevant=v) for j, v in probe.votes.items()],
                relevant_votes=sum(probe.votes.values()), relevant=probe.relevant))
        return pb.JudgeRelevanceResponse(judges=[j.name for j in jury], voted_unit_ids=list(votes.units),
                                         items=verdicts)


def _voted_units(world: BuildWorld, votes: VoteResult) -> list[pb.VotedUnit]:
    return [pb.VotedUnit(unit_id=u, unit_name=world.catalog.by_id(u).name, consensus_rank=votes.consensus[u])
            for u in votes.units]


def _given_votes(world: BuildWorld, unit_ids: list[str]) -> VoteResult:
    """The caller's voted units (best first) as a vote; the relevance jury reads only their order."""
    scientific = {u.id for u in world.catalog.scientific()}
    for i, unit in enumerate(unit_ids):
        if unit not in scientific:
            raise InvalidInput(f"voted_unit_ids[{i}]", f"{unit!r} is not a scientific unit of the unit set")
        if unit in unit_ids[:i]:
            raise InvalidInput(f"voted_unit_ids[{i}]", f"{unit!r} repeats")
    return VoteResult(tuple(unit_ids), {u: float(rank) for rank, u in enumerate(unit_ids, start=1)}, {})


def binding(ctx: Context) -> ServiceBinding:
    servicer = JuryServicer(ctx)
    return ServiceBinding(SERVICE_NAME, lambda server: pb_grpc.add_JuryServiceServicer_to_server(servicer, server))
