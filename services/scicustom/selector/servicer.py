"""SelectorService: proto <-> the proxy-subset use case (app/proxy_selection.py)."""

from __future__ import annotations

import grpc

from scicustom.app.proxy_selection import ProxySelector, ScoredItemInput
from scicustom.bootstrap import Context
from scicustom.grpc_server.server import ServiceBinding
from scicustom.grpc_server.status_mapping import check_deadline
from scicustom.selector.v1 import selector_pb2 as pb
from scicustom.selector.v1 import selector_pb2_grpc as pb_grpc

SERVICE_NAME = "scicustom.selector.v1.SelectorService"


def scored_item(message: pb.ScoredItem) -> ScoredItemInput:
    return ScoredItemInput(message.id, message.hardness if message.HasField("hardness") else None,
                           message.quality if message.HasField("quality") else None)


class SelectorServicer(pb_grpc.SelectorServiceServicer):
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.selector = ProxySelector(ctx)

    def SelectProxySubset(self, request: pb.SelectProxySubsetRequest,
                          context: grpc.ServicerContext) -> pb.SelectProxySubsetResponse:
        found = self.selector.select([scored_item(m) for m in request.items], request.k2, request.samples,
                                     request.seed, lambda: check_deadline(context))
        ids, hardness, quality, subset = found.ids, found.hardness, found.quality, found.subset
        return pb.SelectProxySubsetResponse(
            chosen=[pb.ChosenItem(id=ids[i], position=i, hardness=float(hardness[i]), quality=float(quality[i]))
                    for i in subset.indices],
            w1_hardness=subset.w1_hardness, w1_quality=subset.w1_quality, w1_total=subset.w1_total,
            clusters=subset.n_clusters, subsets=subset.n_subsets, embedder=found.embedder,
            scores_source=found.scores_source, scores_computed=found.scores_computed)


def binding(ctx: Context) -> ServiceBinding:
    servicer = SelectorServicer(ctx)
    return ServiceBinding(SERVICE_NAME,
                          lambda server: pb_grpc.add_SelectorServiceServicer_to_server(servicer, server))
