"""RetrievalService: proto <-> the retrieval use case (app/retrieval.py): the paper's ordered
candidates from the unit index, paged by a cursor, and embedding kNN."""

from __future__ import annotations

import grpc

from scicustom.app.retrieval import Retrieval, VotedUnitInput
from scicustom.bootstrap import Context
from scicustom.grpc_server.server import ServiceBinding
from scicustom.retrieval.v1 import retrieval_pb2 as pb
from scicustom.retrieval.v1 import retrieval_pb2_grpc as pb_grpc

SERVICE_NAME = "scicustom.retrieval.v1.RetrievalService"


class RetrievalServicer(pb_grpc.RetrievalServiceServicer):
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.retrieval = Retrieval(ctx)

    def Candidates(self, request: pb.CandidatesRequest, context: grpc.ServicerContext) -> pb.CandidatesResponse:
        voted = [VotedUnitInput(u.unit_id, u.consensus_rank) for u in request.voted_units]
        page = self.retrieval.candidates(voted, request.page_size, request.page_token)
        return pb.CandidatesResponse(next_page_token=page.next_page_token, candidates=[
            pb.Candidate(item_id=c.item_id, shared_unit_ids=list(c.shared_units),
                         mean_consensus_rank=float(c.mean_rank), position=position)
            for position, c in page.candidates])

    def Search(self, request: pb.SearchRequest, context: grpc.ServicerContext) -> pb.SearchResponse:
        found = self.retrieval.search(request.text, request.k)
        return pb.SearchResponse(hits=[pb.SearchHit(item_id=i, cosine=c) for i, c in found.hits],
                                 embedder=found.embedder)


def binding(ctx: Context) -> ServiceBinding:
    servicer = RetrievalServicer(ctx)
    return ServiceBinding(SERVICE_NAME,
                          lambda server: pb_grpc.add_RetrievalServiceServicer_to_server(servicer, server))
