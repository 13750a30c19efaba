"""JuryService: proto <-> the jury use case (app/jury.py), the voting and relevance judges of a build."""

from __future__ import annotations

import grpc

from scicustom.app.build.request import (
    JuryOptions,
    jury_options,
    requirement_from_fields,
    requirement_from_free_text,
    requirement_from_yaml_text,
)
from scicustom.app.build.world_cache import WorldCache
from scicustom.app.jury import Jury
from scicustom.bootstrap import Context
from scicustom.core.errors import InvalidInput
from scicustom.core.requirement import Requirement
from scicustom.grpc_server.server import ServiceBinding
from scicustom.grpc_server.status_mapping import check_deadline
from scicustom.jury.v1 import jury_pb2 as pb
from scicustom.jury.v1 import jury_pb2_grpc as pb_grpc

SERVICE_NAME = "scicustom.jury.v1.JuryService"


def requirement_from_message(message: pb.Requirement, field: str = "requirement") -> Requirement:
    """Parse with the requirement code the CLI and BuildService use; problems name `field.<form>`."""
    form = message.WhichOneof("form")
    if form is None:
        raise InvalidInput(field, "give yaml, text or fields")
    if form == "yaml":
        return requirement_from_yaml_text(message.yaml, f"{field}.yaml")
    if form == "text":
        return requirement_from_free_text(message.text, f"{field}.text")
    fields = message.fields
    return requirement_from_fields(fields.name, fields.domain, fields.description, f"{field}.fields")


def options_from_message(message: pb.JuryOptions, requirement: Requirement) -> JuryOptions:
    return jury_options(requirement, message.llm_judges, message.relevance_quantile or None,
                        "jury.relevance_quantile", "jury.llm_judges")


class JuryServicer(pb_grpc.JuryServiceServicer):
    def __init__(self, ctx: Context, worlds: WorldCache | None = None) -> None:
        self.ctx = ctx
        self.jury = Jury(worlds or ctx.world_cache())

    def RankUnits(self, request: pb.RankUnitsRequest, context: grpc.ServicerContext) -> pb.RankUnitsResponse:
        requirement = requirement_from_message(request.requirement)
        vote = self.jury.rank_units(requirement, options_from_message(request.jury, requirement), request.k1,
                                    lambda: check_deadline(context))
        return pb.RankUnitsResponse(
            requirement_name=vote.requirement_name,
            rankings=[pb.JudgeRanking(judge=r.judge, kind=r.kind, unit_ids=r.unit_ids) for r in vote.rankings],
            voted_units=[pb.VotedUnit(unit_id=v.unit_id, unit_name=v.unit_name, consensus_rank=v.consensus_rank)
                         for v in vote.voted_units],
            missing_rank=vote.candidate_units + 1, candidate_units=vote.candidate_units)

    def JudgeRelevance(self, request: pb.JudgeRelevanceRequest,
                       context: grpc.ServicerContext) -> pb.JudgeRelevanceResponse:
        requirement = requirement_from_message(request.requirement)
        verdicts = self.jury.judge_relevance(
            requirement, options_from_message(request.jury, requirement), list(request.item_ids), request.k1,
            request.seed, list(request.voted_unit_ids), lambda: check_deadline(context))
        return pb.JudgeRelevanceResponse(judges=verdicts.judges, voted_unit_ids=verdicts.voted_unit_ids, items=[
            pb.ItemVerdict(item_id=v.item_id,
                           verdicts=[pb.JudgeVerdict(judge=j, relevant=r) for j, r in v.votes.items()],
                           relevant_votes=sum(v.votes.values()), relevant=v.relevant)
            for v in verdicts.items])


def binding(ctx: Context) -> ServiceBinding:
    servicer = JuryServicer(ctx)
    return ServiceBinding(SERVICE_NAME, lambda server: pb_grpc.add_JuryServiceServicer_to_server(servicer, server))
