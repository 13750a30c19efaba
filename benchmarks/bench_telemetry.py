"""What tracing costs, measured against the untraced path in the same run on this machine.

Spans go through a BatchSpanProcessor and the OTLP/gRPC exporter to the loopback receiver of the
tests, as in a traced deployment. Times: a filesystem store read with and without the traced
wrapper; a loopback gRPC health Check with and without the client and server interceptors; the
per-record cost of a Kafka consumer span plus header injection for the next event.

Run: python benchmarks/bench_telemetry.py [calls]
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from collections.abc import Callable
from concurrent import futures
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "services"))

import grpc  # noqa: E402
from grpc_health.v1 import health, health_pb2, health_pb2_grpc  # noqa: E402
from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter  # noqa: E402
from opentelemetry.sdk.trace import TracerProvider  # noqa: E402
from opentelemetry.sdk.trace.export import BatchSpanProcessor  # noqa: E402

from scicustom.adapters.filesystem_store import FilesystemObjectStore  # noqa: E402
from scicustom.adapters.traced_object_store import TracedObjectStore  # noqa: E402
from scicustom.ports import BusMessage  # noqa: E402
from scicustom.telemetry.grpc_tracing import client_interceptor, server_interceptor  # noqa: E402
from scicustom.telemetry.kafka_context import consumer_span, inject_headers  # noqa: E402
from tests.support.otlp_receiver import OtlpReceiver  # noqa: E402


def per_call_us(action: Callable[[], object], calls: int) -> float:
    action()  # warm up
    start = time.perf_counter()
    for _ in range(calls):
        action()
    return (time.perf_counter() - start) / calls * 1e6


def health_server(interceptors: list[grpc.ServerInterceptor]) -> tuple[grpc.Server, int]:
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4), interceptors=interceptors)
    servicer = health.HealthServicer()
    servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    health_pb2_grpc.add_HealthServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    return server, port


def grpc_check_us(provider: TracerProvider | None, calls: int) -> float:
    server, port = health_server([server_interceptor(provider)] if provider else [])
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    if provider is not None:
        channel = grpc.intercept_channel(channel, client_interceptor(provider))
    stub = health_pb2_grpc.HealthStub(channel)
    request = health_pb2.HealthCheckRequest(service="")
    try:
        return per_call_us(lambda: stub.Check(request, timeout=10), calls)
    finally:
        channel.close()
        server.stop(grace=None).wait()


def main() -> None:
    calls = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    with OtlpReceiver.start() as receiver, tempfile.TemporaryDirectory() as tmp:
        provider = TracerProvider()
        provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter(endpoint=receiver.endpoint, insecure=True)))
        plain = FilesystemObjectStore(Path(tmp))
        plain.put_bytes("builds/b1/candidates.json", b"x" * 4096)
        traced = TracedObjectStore(plain, provider)
        store_plain = per_call_us(lambda: plain.get_bytes("builds/b1/candidates.json"), calls)
        store_traced = per_call_us(lambda: traced.get_bytes("builds/b1/candidates.json"), calls)
        rpc_plain = grpc_check_us(None, calls // 2)
        rpc_traced = grpc_check_us(provider, calls // 2)
        record = BusMessage("scicustom.build.requested", 0, 7, "b1", b"x" * 200, {})

        def handle_record() -> None:
            with consumer_span("vote", record, tracer_provider=provider):
                inject_headers({"event-type": "build.units-voted"})

        record_us = per_call_us(handle_record, calls)
        provider.force_flush(30_000)
        provider.shutdown()
        exported = len(receiver.spans())
    print(f"cpu_count={os.cpu_count()}  calls={calls}  spans exported by OTLP={exported}")
    print(f"store.get_bytes 4 KiB   plain {store_plain:8.1f} us   traced {store_traced:8.1f} us   "
          f"ratio {store_traced / store_plain:5.2f}x   (+{store_traced - store_plain:.1f} us per call)")
    print(f"gRPC Health/Check       plain {rpc_plain:8.1f} us   traced {rpc_traced:8.1f} us   "
          f"ratio {rpc_traced / rpc_plain:5.2f}x   (+{rpc_traced - rpc_plain:.1f} us per call, 2 spans)")
    print(f"Kafka consumer span + header injection: {record_us:.1f} us per record")


if __name__ == "__main__":
    main()
