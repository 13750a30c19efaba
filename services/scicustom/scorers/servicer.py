"""ScorerService: ScoreHypotheses (M2M), AuditInstructionFollowing (SciIF), JudgeRecipes (AlchemyBench).

Each method hands its request to the suite's module; LLM calls go through `ctx.llm`, metered per
request. An LLM call that still fails after the adapter's retries is UNAVAILABLE: the caller may
retry, and the response cache keeps what was already answered.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NoReturn

import grpc

from scicustom.bootstrap import Context
from scicustom.commands.score_m2m import load_vocabulary
from scicustom.commands.score_sciif import DEFAULT_CATALOG, load_catalog
from scicustom.core.errors import LLMCallFailed
from scicustom.core.m2m.vocabulary import M2MVocabulary
from scicustom.core.sciif.catalog import Catalog
from scicustom.grpc_server.server import ServiceBinding
from scicustom.grpc_server.status_mapping import check_deadline
from scicustom.ports import LLM, Embedder
from scicustom.scorers.alchemy_request import judge_recipes
from scicustom.scorers.m2m_request import score_hypotheses
from scicustom.scorers.sciif_request import audit_instruction_following
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
            return score_hypotheses(request, self.vocabulary, self._llm, self._embedder)
        except LLMCallFailed as exc:
            abort_unavailable(context, exc)

    def AuditInstructionFollowing(self, request: pb.AuditInstructionFollowingRequest,
                                  context: grpc.ServicerContext) -> pb.AuditInstructionFollowingResponse:
        between_steps: Callable[[], None] = lambda: check_deadline(context)  # noqa: E731
        try:
            return audit_instruction_following(request, self.catalog, self._llm, between_steps)
        except LLMCallFailed as exc:
            abort_unavailable(context, exc)

    def JudgeRecipes(self, request: pb.JudgeRecipesRequest, context: grpc.ServicerContext) -> pb.JudgeRecipesResponse:
        try:
            return judge_recipes(request, self._llm)
        except LLMCallFailed as exc:
            abort_unavailable(context, exc)


def binding(ctx: Context) -> ServiceBinding:
    servicer = ScorerServicer(ctx, load_vocabulary(), load_catalog(DEFAULT_CATALOG))
    return ServiceBinding(SERVICE_NAME, lambda server: pb_grpc.add_ScorerServiceServicer_to_server(servicer, server))
