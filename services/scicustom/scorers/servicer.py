"""ScorerService: ScoreHypotheses (M2M), AuditInstructionFollowing (SciIF), JudgeRecipes (AlchemyBench).

Each method converts its request (the suite's `*_request` module), calls the suite's use case in
`app.scoring` (the one `scicustom score` calls) and converts the result; LLM calls go through
`ctx.llm`. An LLM call that still fails after the adapter's retries is UNAVAILABLE: the caller may
retry, and the response cache keeps what was already answered.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NoReturn

import grpc

from scicustom.app.scoring.alchemy import judge_recipes
from scicustom.app.scoring.m2m import load_vocabulary, score_hypotheses
from scicustom.app.scoring.sciif import audit_answers, load_catalog
from scicustom.bootstrap import Context
from scicustom.core.errors import LLMCallFailed
from scicustom.core.m2m.vocabulary import M2MVocabulary
from scicustom.core.sciif.catalog import Catalog
from scicustom.core.sciif.items import ModelAnswer
from scicustom.grpc_server.server import ServiceBinding
from scicustom.grpc_server.status_mapping import check_deadline
from scicustom.ports import LLM, Embedder
from scicustom.scorers.alchemy_request import judge_request, judge_response
from scicustom.scorers.m2m_request import m2m_request, m2m_response
from scicustom.scorers.sciif_request import audit_request, audit_response
from scicustom.scorers.v1 import scorers_pb2 as pb
from scicustom.scorers.v1 import scorers_pb2_grpc as pb_grpc

SERVICE_NAME = "scicustom.scorers.v1.ScorerService"


def abort_unavailable(context: grpc.ServicerContext, exc: LLMCallFailed) -> NoReturn:
    context.abort(grpc.StatusCode.UNAVAILABLE, f"an LLM call failed after its retries: {exc}")
    raise AssertionError("context.abort returned")  # grpc's abort always raises


class ScorerServicer(pb_grpc.ScorerServiceServicer):
    def __init__(self, ctx: Context, vocabulary: M2MVocabulary, catalog: Catalog) -> None:
        self.ctx = ctx
        self.vocabulary = vocabulary
        self.catalog = catalog

    def _llm(self) -> LLM:
        return self.ctx.llm

    def _embedder(self) -> Embedder:
        return self.ctx.embedder

    def ScoreHypotheses(self, request: pb.ScoreHypothesesRequest,
                        context: grpc.ServicerContext) -> pb.ScoreHypothesesResponse:
        try:
            scores = score_hypotheses(m2m_request(request, self.vocabulary), self.vocabulary, self._llm,
                                      self._embedder)
        except LLMCallFailed as exc:
            abort_unavailable(context, exc)
        return m2m_response(scores)

    def AuditInstructionFollowing(self, request: pb.AuditInstructionFollowingRequest,
                                  context: grpc.ServicerContext) -> pb.AuditInstructionFollowingResponse:
        def after_generation(generated: Sequence[ModelAnswer]) -> None:
            check_deadline(context)

        try:
            result = audit_answers(audit_request(request, self.catalog), self.catalog, self._llm, after_generation)
        except LLMCallFailed as exc:
            abort_unavailable(context, exc)
        return audit_response(result)

    def JudgeRecipes(self, request: pb.JudgeRecipesRequest, context: grpc.ServicerContext) -> pb.JudgeRecipesResponse:
        judging = judge_request(request)
        try:
            result = judge_recipes(judging, self._llm)
        except LLMCallFailed as exc:
            abort_unavailable(context, exc)
        return judge_response(result, judging.groups)


def binding(ctx: Context) -> ServiceBinding:
    servicer = ScorerServicer(ctx, load_vocabulary(), load_catalog())
    return ServiceBinding(SERVICE_NAME, lambda server: pb_grpc.add_ScorerServiceServicer_to_server(servicer, server))
