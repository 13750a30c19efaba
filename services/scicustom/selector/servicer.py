"""SelectorService: the proxy subset over gRPC, `core.proxy_subset.select_proxy_subset` on the stored
embeddings of `ctx.embedder` and either the caller's scores or the stored intrinsic scores (computed
and stored first where missing, as a build's selection stage does)."""

from __future__ import annotations

import math
from collections.abc import Sequence

import grpc
import numpy as np

from scicustom.bootstrap import Context
from scicustom.core.build.proxy_subset import select_proxy_subset
from scicustom.core.errors import InvalidInput, NotFound, PreconditionFailed
from scicustom.grpc_server.field_checks import bounded, checked_list
from scicustom.grpc_server.server import ServiceBinding
from scicustom.grpc_server.status_mapping import check_deadline
from scicustom.ingest.intrinsic_scoring import ensure_intrinsic_scores
from scicustom.selector.v1 import selector_pb2 as pb
from scicustom.selector.v1 import selector_pb2_grpc as pb_grpc

SERVICE_NAME = "scicustom.selector.v1.SelectorService"
MAX_ITEMS = 20000
MAX_ID_CHARS = 256
MAX_K2 = 1000
DEFAULT_K2 = 100         # the paper's K2
MAX_SAMPLES = 1000
DEFAULT_SAMPLES = 100    # the paper's N candidate subsets


def checked_ids(items: Sequence[pb.ScoredItem]) -> list[str]:
    checked_list(items, "items", MAX_ITEMS)
    first: dict[str, int] = {}
    for i, item in enumerate(items):
        if not item.id.strip():
            raise InvalidInput(f"items[{i}].id", "is empty")
        if len(item.id) > MAX_ID_CHARS:
            raise InvalidInput(f"items[{i}].id", f"has {len(item.id)} characters, above the limit {MAX_ID_CHARS}")
        if item.id in first:
            raise InvalidInput(f"items[{i}].id", f"{item.id!r} repeats items[{first[item.id]}]")
        first[item.id] = i
    return [item.id for item in items]


def given_scores(items: Sequence[pb.ScoredItem]) -> tuple[np.ndarray, np.ndarray] | None:
    """(hardness, quality) from the request, or None when no item carries scores."""
    scored = [item.HasField("hardness") or item.HasField("quality") for item in items]
    if not any(scored):
        return None
    for i, item in enumerate(items):
        for name in ("hardness", "quality"):
            if not item.HasField(name):
                raise InvalidInput(f"items[{i}].{name}", "is missing: give hardness and quality for every item "
                                                         "or for none")
        if not math.isfinite(item.hardness) or item.hardness <= 0:
            raise InvalidInput(f"items[{i}].hardness", f"{item.hardness} is not a perplexity (finite, > 0)")
        if not math.isfinite(item.quality):
            raise InvalidInput(f"items[{i}].quality", f"{item.quality} is not finite")
    return (np.array([item.hardness for item in items], dtype=np.float64),
            np.array([item.quality for item in items], dtype=np.float64))


class SelectorServicer(pb_grpc.SelectorServiceServicer):
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    def SelectProxySubset(self, request: pb.SelectProxySubsetRequest,
                          context: grpc.ServicerContext) -> pb.SelectProxySubsetResponse:
        ids = checked_ids(request.items)
        k2 = bounded(request.k2, "k2", MAX_K2, DEFAULT_K2)
        samples = bounded(request.samples, "samples", MAX_SAMPLES, DEFAULT_SAMPLES)
        scores = given_scores(request.items)
        source = "request" if scores is not None else "stored"
        embeddings = self._embeddings(ids)
        check_deadline(context)
        computed = 0
        if scores is None:
            scores, computed = self._stored_scores(ids)
            check_deadline(context)
        hardness, quality = scores
        result = select_proxy_subset(embeddings, hardness, quality, k2, samples, request.seed)
        return pb.SelectProxySubsetResponse(
            chosen=[pb.ChosenItem(id=ids[i], position=i, hardness=float(hardness[i]), quality=float(quality[i]))
                    for i in result.indices],
            w1_hardness=result.w1_hardness, w1_quality=result.w1_quality, w1_total=result.w1_total,
            clusters=result.n_clusters, subsets=result.n_subsets, embedder=self.ctx.embedder.name,
            scores_source=source, scores_computed=computed)

    def _embeddings(self, ids: Sequence[str]) -> np.ndarray:
        """The stored vectors of the items, in request order."""
        stored_ids, matrix = self.ctx.corpus.load_embeddings(self.ctx.embedder.name)
        if not stored_ids:
            raise PreconditionFailed(f"no corpus item is embedded with {self.ctx.embedder.name} yet; "
                                     "run `scicustom corpus tag`")
        row_of = {item_id: row for row, item_id in enumerate(stored_ids)}
        for i, item_id in enumerate(ids):
            if item_id not in row_of:
                raise NotFound(f"items[{i}].id", f"{item_id!r} is not a corpus item with a stored embedding")
        return np.asarray(matrix[[row_of[i] for i in ids]])

    def _stored_scores(self, ids: Sequence[str]) -> tuple[tuple[np.ndarray, np.ndarray], int]:
        """(hardness, quality) of the stored intrinsic scores, and how many had to be computed."""
        corpus = self.ctx.corpus
        by_id = {it.id: it for it in corpus.load_items()}
        if not by_id:
            raise PreconditionFailed("the corpus is empty; run `scicustom corpus import`")
        for i, item_id in enumerate(ids):
            if item_id not in by_id:
                raise NotFound(f"items[{i}].id", f"{item_id!r} is not a corpus item")
        report = ensure_intrinsic_scores(corpus, self.ctx.perplexity, [by_id[i] for i in ids], show_progress=False)
        known = corpus.load_intrinsic()
        quality = np.array([known[i][0] for i in ids], dtype=np.float64)
        hardness = np.array([known[i][1] for i in ids], dtype=np.float64)
        return (hardness, quality), report.computed


def binding(ctx: Context) -> ServiceBinding:
    servicer = SelectorServicer(ctx)
    return ServiceBinding(SERVICE_NAME,
                          lambda server: pb_grpc.add_SelectorServiceServicer_to_server(servicer, server))
