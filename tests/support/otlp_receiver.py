"""A small OTLP/gRPC trace receiver on loopback: no collector binary exists here, so tests point
OTEL_EXPORTER_OTLP_ENDPOINT at this and read back the spans every process exported.

    receiver = OtlpReceiver.start()          # port 0: a free port, in `receiver.port`
    env["OTEL_EXPORTER_OTLP_ENDPOINT"] = receiver.endpoint
    env["OTEL_EXPORTER_OTLP_INSECURE"] = "true"
    ...
    spans = receiver.spans()                 # ReceivedSpan records, in arrival order
    receiver.stop()
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from concurrent import futures
from dataclasses import dataclass, field
from typing import Any

import grpc
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2 as collector_pb
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2_grpc as collector_grpc
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.trace.v1 import trace_pb2

_KINDS = {trace_pb2.Span.SPAN_KIND_INTERNAL: "INTERNAL", trace_pb2.Span.SPAN_KIND_SERVER: "SERVER",
          trace_pb2.Span.SPAN_KIND_CLIENT: "CLIENT", trace_pb2.Span.SPAN_KIND_PRODUCER: "PRODUCER",
          trace_pb2.Span.SPAN_KIND_CONSUMER: "CONSUMER", trace_pb2.Span.SPAN_KIND_UNSPECIFIED: "UNSPECIFIED"}
_STATUSES = {trace_pb2.Status.STATUS_CODE_UNSET: "UNSET", trace_pb2.Status.STATUS_CODE_OK: "OK",
             trace_pb2.Status.STATUS_CODE_ERROR: "ERROR"}


@dataclass(frozen=True)
class ReceivedSpan:
    """One exported span, ids in lowercase hex; `parent_span_id` is "" for a root span."""

    service: str
    name: str
    kind: str                      # SERVER, CLIENT, PRODUCER, CONSUMER, INTERNAL
    trace_id: str
    span_id: str
    parent_span_id: str
    status: str                    # UNSET, OK, ERROR
    attributes: dict[str, Any] = field(default_factory=dict)
    resource: dict[str, Any] = field(default_factory=dict)
    scope: str = ""                # the instrumentation scope (tracer) name


def any_value(value: AnyValue) -> Any:
    kind = value.WhichOneof("value")
    if kind is None:
        return None
    if kind == "array_value":
        return [any_value(v) for v in value.array_value.values]
    if kind == "kvlist_value":
        return key_values(value.kvlist_value.values)
    return getattr(value, kind)


def key_values(pairs: Any) -> dict[str, Any]:
    return {pair.key: any_value(pair.value) for pair in pairs if isinstance(pair, KeyValue)}


def received_spans(request: collector_pb.ExportTraceServiceRequest) -> list[ReceivedSpan]:
    spans = []
    for resource_spans in request.resource_spans:
        resource = key_values(resource_spans.resource.attributes)
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                spans.append(ReceivedSpan(
                    service=str(resource.get("service.name", "")), name=span.name, kind=_KINDS[span.kind],
                    trace_id=span.trace_id.hex(), span_id=span.span_id.hex(),
                    parent_span_id=span.parent_span_id.hex(), status=_STATUSES[span.status.code],
                    attributes=key_values(span.attributes), resource=resource, scope=scope_spans.scope.name))
    return spans


class OtlpReceiver(collector_grpc.TraceServiceServicer):
    def __init__(self) -> None:
        self._spans: list[ReceivedSpan] = []
        self._lock = threading.Lock()
        self._server: grpc.Server | None = None
        self.port = 0

    @classmethod
    def start(cls, host: str = "127.0.0.1") -> OtlpReceiver:
        receiver = cls()
        server = grpc.server(futures.ThreadPoolExecutor(max_workers=4))
        collector_grpc.add_TraceServiceServicer_to_server(receiver, server)  # type: ignore[no-untyped-call]
        receiver.port = server.add_insecure_port(f"{host}:0")
        server.start()
        receiver._server = server
        return receiver

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def Export(self, request: collector_pb.ExportTraceServiceRequest,
               context: grpc.ServicerContext) -> collector_pb.ExportTraceServiceResponse:
        spans = received_spans(request)
        with self._lock:
            self._spans.extend(spans)
        return collector_pb.ExportTraceServiceResponse()

    def spans(self) -> list[ReceivedSpan]:
        with self._lock:
            return list(self._spans)

    def wait_for(self, predicate: Callable[[list[ReceivedSpan]], bool], timeout_s: float = 10.0) -> list[ReceivedSpan]:
        """The spans once `predicate(spans)` holds (other processes export in batches); the last
        snapshot when it never does, for the caller's assertion to show."""
        deadline = time.monotonic() + timeout_s
        spans = self.spans()
        while not predicate(spans) and time.monotonic() < deadline:
            time.sleep(0.05)
            spans = self.spans()
        return spans

    def clear(self) -> None:
        with self._lock:
            self._spans.clear()

    def stop(self) -> None:
        if self._server is not None:
            self._server.stop(grace=None).wait()
            self._server = None

    def __enter__(self) -> OtlpReceiver:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()
