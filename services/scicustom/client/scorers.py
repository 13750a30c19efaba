"""ScorersClient: the scoring suites of ScorerService (Matter to Mechanism hypotheses, the SciIF
audit, the AlchemyBench recipe judge).

Their requests and responses are large documented schemas (protos/scicustom/scorers/v1), so this
client takes and returns the protobuf messages themselves (`scicustom.scorers.v1.scorers_pb2`)
rather than mirroring them. Scoring is a pure function of the records and options and every LLM
call behind it goes through the service's response cache, so a retry costs no new model calls:
every call is retried on UNAVAILABLE. LLM scoring is slow; give `timeout_s` above the default
deadline for large requests.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from scicustom.client.connection import ClientOptions, ServiceClient
from scicustom.scorers.v1 import scorers_pb2 as pb
from scicustom.scorers.v1 import scorers_pb2_grpc as pb_grpc


class ScorersClient(ServiceClient):
    SERVICE = "ScorerService"

    def __init__(self, address: str, options: ClientOptions | None = None, *,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        super().__init__(address, options, sleep=sleep)
        self._stub = pb_grpc.ScorerServiceStub(self.channel)  # type: ignore[no-untyped-call]

    def score_hypotheses(self, request: pb.ScoreHypothesesRequest, *,
                         timeout_s: float | None = None) -> pb.ScoreHypothesesResponse:
        """Matter to Mechanism: rcf, hpa, msi, sns, ip, pdq and cbs per hypothesis (paper 001)."""
        response: pb.ScoreHypothesesResponse = self._unary(self._stub.ScoreHypotheses, request, idempotent=True,
                                                           timeout_s=timeout_s)
        return response

    def audit_instruction_following(self, request: pb.AuditInstructionFollowingRequest, *,
                                    timeout_s: float | None = None) -> pb.AuditInstructionFollowingResponse:
        """SciIF: the constraint audit of model answers (paper 002)."""
        response: pb.AuditInstructionFollowingResponse = self._unary(
            self._stub.AuditInstructionFollowing, request, idempotent=True, timeout_s=timeout_s)
        return response

    def judge_recipes(self, request: pb.JudgeRecipesRequest, *,
                      timeout_s: float | None = None) -> pb.JudgeRecipesResponse:
        """AlchemyBench: the 7-criterion LLM judge of synthesis recipes (paper 003)."""
        response: pb.JudgeRecipesResponse = self._unary(self._stub.JudgeRecipes, request, idempotent=True,
                                                        timeout_s=timeout_s)
        return response
