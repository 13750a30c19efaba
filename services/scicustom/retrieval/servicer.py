"""RetrievalService: the paper's ordered candidates from the unit index (`ctx.unit_index`), paged by
a cursor, and embedding kNN (`ctx.embedder` + `ctx.vector_index`)."""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import math
from collections.abc import Mapping, Sequence

import grpc

from scicustom.bootstrap import Context
from scicustom.core.build.candidates import Candidate, order_candidates
from scicustom.core.errors import InvalidInput
from scicustom.grpc_server.field_checks import bounded, checked_list, checked_text
from scicustom.grpc_server.server import ServiceBinding
from scicustom.retrieval.v1 import retrieval_pb2 as pb
from scicustom.retrieval.v1 import retrieval_pb2_grpc as pb_grpc

SERVICE_NAME = "scicustom.retrieval.v1.RetrievalService"
MAX_VOTED = 100
MAX_PAGE = 1000
DEFAULT_PAGE = 100
MAX_K = 1000
DEFAULT_K = 10
_BAD_TOKEN = "is not a token this service returned for these voted units"


def query_fingerprint(voted: Sequence[str], consensus: Mapping[str, float]) -> str:
    """Ties a page token to its query: the voted units in order and their exact consensus ranks."""
    canonical = json.dumps([[u, float(consensus[u]).hex()] for u in voted])
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def encode_token(fingerprint: str, last: Candidate, next_position: int) -> str:
    payload = {"q": fingerprint, "id": last.item_id, "units": list(last.shared_units), "pos": next_position}
    return base64.urlsafe_b64encode(json.dumps(payload, separators=(",", ":")).encode()).decode()


def decode_token(token: str, fingerprint: str, consensus: Mapping[str, float]) -> tuple[Candidate, int]:
    """The cursor (last candidate of the previous page) and the position of the next one."""
    try:
        payload = json.loads(base64.urlsafe_b64decode(token.encode()))
        item_id, units, position = str(payload["id"]), [str(u) for u in payload["units"]], int(payload["pos"])
        valid = payload["q"] == fingerprint and units and all(u in consensus for u in units) and position > 0
    except (binascii.Error, ValueError, KeyError, TypeError):
        valid = False
    if not valid:
        raise InvalidInput("page_token", _BAD_TOKEN)
    # The cursor's mean rank follows from its units and this query's ranks, as the index computes it.
    return order_candidates({item_id: units}, consensus)[0], position


def voted_units(message: Sequence[pb.VotedUnit], catalog_ids: set[str]) -> tuple[list[str], dict[str, float]]:
    checked_list(message, "voted_units", MAX_VOTED)
    voted: list[str] = []
    consensus: dict[str, float] = {}
    for i, unit in enumerate(message):
        if unit.unit_id not in catalog_ids:
            raise InvalidInput(f"voted_units[{i}].unit_id", f"{unit.unit_id!r} is not a unit of the unit set")
        if unit.unit_id in consensus:
            raise InvalidInput(f"voted_units[{i}].unit_id", f"{unit.unit_id!r} repeats")
        if not math.isfinite(unit.consensus_rank) or unit.consensus_rank < 1:
            raise InvalidInput(f"voted_units[{i}].consensus_rank", "must be a finite rank >= 1")
        voted.append(unit.unit_id)
        consensus[unit.unit_id] = unit.consensus_rank
    return voted, consensus


class RetrievalServicer(pb_grpc.RetrievalServiceServicer):
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    def Candidates(self, request: pb.CandidatesRequest, context: grpc.ServicerContext) -> pb.CandidatesResponse:
        voted, consensus = voted_units(request.voted_units, {u.id for u in self.ctx.catalog.units})
        size = bounded(request.page_size, "page_size", MAX_PAGE, DEFAULT_PAGE)
        fingerprint = query_fingerprint(voted, consensus)
        after, position = (decode_token(request.page_token, fingerprint, consensus) if request.page_token
                           else (None, 0))
        # One more than the page tells whether another page follows.
        found = self.ctx.unit_index.ordered_candidates(voted, consensus, limit=size + 1, after=after)
        page = found[:size]
        token = encode_token(fingerprint, page[-1], position + len(page)) if len(found) > size else ""
        return pb.CandidatesResponse(next_page_token=token, candidates=[
            pb.Candidate(item_id=c.item_id, shared_unit_ids=list(c.shared_units),
                         mean_consensus_rank=float(c.mean_rank), position=position + offset)
            for offset, c in enumerate(page)])

    def Search(self, request: pb.SearchRequest, context: grpc.ServicerContext) -> pb.SearchResponse:
        checked_text(request.text, "text")
        k = bounded(request.k, "k", MAX_K, DEFAULT_K)
        embedder = self.ctx.embedder
        vector = embedder.encode([request.text])[0]
        hits = self.ctx.vector_index.nearest(vector, k)
        return pb.SearchResponse(hits=[pb.SearchHit(item_id=i, cosine=c) for i, c in hits], embedder=embedder.name)


def binding(ctx: Context) -> ServiceBinding:
    servicer = RetrievalServicer(ctx)
    return ServiceBinding(SERVICE_NAME,
                          lambda server: pb_grpc.add_RetrievalServiceServicer_to_server(servicer, server))
