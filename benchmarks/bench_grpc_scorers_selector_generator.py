"""SelectorService, GeneratorService and ScorerService over a loopback channel (the full interceptor
chain of `scicustom service`) against the same core calls in process (baseline), in the same run:

- ScoreHypotheses on N synthetic M2M rows (default 2,645, the reference's set) vs `score_records`;
- SelectProxySubset of D_r = 2,000 items (K2 = 100, N = 100 subsets, given scores) vs
  `select_proxy_subset`;
- ToMCQ of 1,000 items (the request limit) of the same 2,001-item tagged corpus (offline
  distractors) vs `to_mcq` per item with the corpus loaded once.

Run: python benchmarks/bench_grpc_scorers_selector_generator.py [m2m_rows]
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "services"))

import grpc  # noqa: E402
import numpy as np  # noqa: E402

from scicustom.app.distractor_corpus import DistractorCorpus  # noqa: E402
from scicustom.app.scoring.m2m import RECORD_FIELDS, load_vocabulary  # noqa: E402
from scicustom.commands.service import server_interceptors  # noqa: E402
from scicustom.core.build.mcq import to_mcq  # noqa: E402
from scicustom.core.build.proxy_subset import select_proxy_subset  # noqa: E402
from scicustom.core.m2m.records import records_from_jsonl  # noqa: E402
from scicustom.core.m2m.scoring import score_records  # noqa: E402
from scicustom.core.requirement import Requirement  # noqa: E402
from scicustom.generator import servicer as generator  # noqa: E402
from scicustom.generator.v1 import generator_pb2, generator_pb2_grpc  # noqa: E402
from scicustom.grpc_server.server import ServiceBinding, start_server  # noqa: E402
from scicustom.scorers import servicer as scorers  # noqa: E402
from scicustom.scorers.v1 import scorers_pb2, scorers_pb2_grpc  # noqa: E402
from scicustom.selector import servicer as selector  # noqa: E402
from scicustom.selector.v1 import selector_pb2, selector_pb2_grpc  # noqa: E402
from tests.unit.grpc_scorers_selector_generator.corpus_world import tagged_context  # noqa: E402
from tests.unit.m2m.synthetic_rows import synthetic_rows  # noqa: E402

MAX_MESSAGE = 64 * 1024 * 1024
REQUIREMENT = Requirement(name="mcq", domain="", description="")  # read only by an LLM writer
SELECT_ITEMS = 2000


def best_of(runs: int, fn: Callable[[], Any]) -> float:
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def served(bindings: list[ServiceBinding]) -> tuple[grpc.Server, grpc.Channel]:
    server, _, port = start_server(bindings, "127.0.0.1", 0, max_message_bytes=MAX_MESSAGE,
                                   interceptors=server_interceptors())
    options = [("grpc.max_receive_message_length", MAX_MESSAGE), ("grpc.max_send_message_length", MAX_MESSAGE)]
    return server, grpc.insecure_channel(f"127.0.0.1:{port}", options=options)


def report(name: str, service_s: float, core_s: float, unit: str, count: int) -> None:
    print(f"{name}: gRPC {service_s:.3f} s ({count / service_s:,.0f} {unit}/s), in process {core_s:.3f} s "
          f"({count / core_s:,.0f} {unit}/s); overhead ratio {service_s / core_s:.2f}x")


def bench_m2m(channel: grpc.Channel, rows_count: int) -> None:
    rows = synthetic_rows(rows_count)
    vocabulary = load_vocabulary()
    request = scorers_pb2.ScoreHypothesesRequest(records=[scorers_pb2.Hypothesis(
        **{k: v for k, v in r.items() if k in RECORD_FIELDS},
        columns={k: v for k, v in r.items() if k not in RECORD_FIELDS})
        for r in rows])
    stub = scorers_pb2_grpc.ScorerServiceStub(channel)
    data = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows).encode()

    def core() -> None:
        score_records(records_from_jsonl(data, vocabulary.text_columns), vocabulary)

    report(f"ScoreHypotheses, {rows_count} rows", best_of(3, lambda: stub.ScoreHypotheses(request, timeout=600)),
           best_of(3, core), "rows", rows_count)


def bench_selector(channel: grpc.Channel, ctx: Any) -> None:
    ids, matrix = ctx.corpus.load_embeddings(ctx.embedder.name)
    ids = ids[:SELECT_ITEMS]
    rng = np.random.default_rng(0)
    hardness, quality = rng.uniform(2, 80, len(ids)), rng.uniform(-10, 90, len(ids))
    request = selector_pb2.SelectProxySubsetRequest(
        items=[selector_pb2.ScoredItem(id=i, hardness=h, quality=q) for i, h, q in zip(ids, hardness, quality,
                                                                                        strict=True)],
        k2=100, samples=100, seed=0)
    stub = selector_pb2_grpc.SelectorServiceStub(channel)
    report(f"SelectProxySubset, {len(ids)} items", best_of(3, lambda: stub.SelectProxySubset(request, timeout=600)),
           best_of(3, lambda: select_proxy_subset(matrix[: len(ids)], hardness, quality, 100, 100, 0)),
           "items", len(ids))


def bench_generator(channel: grpc.Channel, ctx: Any) -> None:
    items = ctx.corpus.load_items()[:1000]
    request = generator_pb2.ToMCQRequest(items=[generator_pb2.ItemToConvert(item_id=it.id) for it in items], seed=1)
    stub = generator_pb2_grpc.GeneratorServiceStub(channel)

    def core() -> None:
        corpus = DistractorCorpus.load(ctx, ctx.corpus.load_items())
        for it in items:
            to_mcq(it, {}, 1, writer=None, requirement=REQUIREMENT, neighbour_answers=corpus.answers)

    report(f"ToMCQ, {len(items)} items", best_of(3, lambda: stub.ToMCQ(request, timeout=600)), best_of(3, core),
           "items", len(items))


def main() -> None:
    rows_count = int(sys.argv[1]) if len(sys.argv) > 1 else 2645
    print(f"cpu_count={os.cpu_count()}")
    with tempfile.TemporaryDirectory() as tmp:
        ctx = tagged_context(Path(tmp), per_topic=SELECT_ITEMS // 4)
        server, channel = served([selector.binding(ctx), generator.binding(ctx), scorers.binding(ctx)])
        try:
            bench_m2m(channel, rows_count)
            bench_selector(channel, ctx)
            bench_generator(channel, ctx)
        finally:
            channel.close()
            server.stop(None)


if __name__ == "__main__":
    main()
