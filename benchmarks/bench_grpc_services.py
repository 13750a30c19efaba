"""The gRPC service runtime against in-process calls, measured in the same run on this machine.

Times, over a loopback channel: a unary call through the full interceptor chain of `scicustom
service` (request log + status mapping) against the bare server (baseline); and RetrievalService
paging the paper's whole candidate list against one in-process `ordered_candidates` call
(baseline) on a synthetic index of N items x 642 units.

Run: python benchmarks/bench_grpc_services.py [items]
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "services"))

import grpc  # noqa: E402
import numpy as np  # noqa: E402

from scicustom.adapters.sparse_unit_index import SparseUnitIndex  # noqa: E402
from scicustom.bootstrap import Context  # noqa: E402
from scicustom.commands.service import server_interceptors  # noqa: E402
from scicustom.config import Settings  # noqa: E402
from scicustom.grpc_server.server import ServiceBinding, start_server  # noqa: E402
from scicustom.retrieval.servicer import binding as retrieval_binding  # noqa: E402
from scicustom.retrieval.v1 import retrieval_pb2 as pb  # noqa: E402
from scicustom.retrieval.v1 import retrieval_pb2_grpc as pb_grpc  # noqa: E402

CALLS = 2000
PAGE = 1000
MAX_MESSAGE = 16 * 1024 * 1024


def echo_binding() -> ServiceBinding:
    handler = grpc.unary_unary_rpc_method_handler(lambda request, context: request)
    generic = grpc.method_handlers_generic_handler("bench.v1.Echo", {"Echo": handler})
    return ServiceBinding("bench.v1.Echo", lambda server: server.add_generic_rpc_handlers((generic,)))


def calls_per_second(interceptors: list[grpc.ServerInterceptor]) -> float:
    server, _, port = start_server([echo_binding()], "127.0.0.1", 0, max_message_bytes=MAX_MESSAGE,
                                   interceptors=interceptors)
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            call = channel.unary_unary("/bench.v1.Echo/Echo")
            for _ in range(100):  # warm up the connection
                call(b"x" * 100, timeout=5)
            start = time.perf_counter()
            for _ in range(CALLS):
                call(b"x" * 100, timeout=5)
            return CALLS / (time.perf_counter() - start)
    finally:
        server.stop(None)


def synthetic_index(n: int, unit_ids: list[str]) -> SparseUnitIndex:
    rng = np.random.default_rng(0)
    popularity = 1.0 / np.arange(1, len(unit_ids) + 1) ** 0.8
    popularity /= popularity.sum()
    tags = {f"item-{i:07d}": [(unit_ids[j], 1.0) for j in rng.choice(len(unit_ids), size=int(rng.integers(1, 6)),
                                                                     replace=False, p=popularity)]
            for i in range(n)}
    return SparseUnitIndex.from_tags(tags, unit_ids)


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 36_700
    bare = calls_per_second([])
    chained = calls_per_second(server_interceptors())
    print(f"unary echo, {CALLS} sequential calls: bare server {bare:,.0f} calls/s, with request log + status "
          f"mapping {chained:,.0f} calls/s (ratio {bare / chained:.2f}x the bare cost)")

    with tempfile.TemporaryDirectory() as home:
        ctx = Context(Settings(home=Path(home)))
        unit_ids = [u.id for u in ctx.catalog.units]
        ctx.unit_index = synthetic_index(n, unit_ids)  # type: ignore[misc]
        voted = unit_ids[:10]
        consensus = {u: float(rank) for rank, u in enumerate(voted, start=1)}
        start = time.perf_counter()
        direct = ctx.unit_index.ordered_candidates(voted, consensus)
        direct_s = time.perf_counter() - start
        server, _, port = start_server([retrieval_binding(ctx)], "127.0.0.1", 0, max_message_bytes=MAX_MESSAGE,
                                       interceptors=server_interceptors())
        try:
            with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
                stub = pb_grpc.RetrievalServiceStub(channel)
                request = pb.CandidatesRequest(voted_units=[pb.VotedUnit(unit_id=u, consensus_rank=consensus[u])
                                                            for u in voted], page_size=PAGE)
                start = time.perf_counter()
                got, token, pages = 0, "", 0
                while True:
                    request.page_token = token
                    page = stub.Candidates(request, timeout=60)
                    got, pages, token = got + len(page.candidates), pages + 1, page.next_page_token
                    if not token:
                        break
                paged_s = time.perf_counter() - start
        finally:
            server.stop(None)
    assert got == len(direct)
    print(f"candidates of 10 voted units over {n:,} items ({got:,} candidates): in-process {direct_s * 1000:.0f} ms, "
          f"RetrievalService {pages} pages of {PAGE} {paged_s * 1000:.0f} ms (ratio {paged_s / direct_s:.1f}x)")
    print(f"machine: {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
