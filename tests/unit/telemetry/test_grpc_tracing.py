"""The gRPC interceptors on a loopback server: the health service (unary Check, streaming Watch)
and a bytes-in/bytes-out demo service for handlers that stream to the end, abort or crash."""

from __future__ import annotations

import time
from collections.abc import Iterator
from concurrent import futures
from dataclasses import dataclass
from types import SimpleNamespace

import grpc
import pytest
from grpc_health.v1 import health, health_pb2, health_pb2_grpc
from opentelemetry import trace
from opentelemetry.trace import SpanKind, StatusCode

from scicustom.telemetry.grpc_tracing import client_interceptor, rpc_attributes, server_interceptor

CHECK = "grpc.health.v1.Health/Check"
WATCH = "grpc.health.v1.Health/Watch"


@dataclass
class Loopback:
    channel: grpc.Channel
    health: health_pb2_grpc.HealthStub
    seen_metadata: list[dict[str, str]]
    handler_spans: list[trace.SpanContext]


@pytest.fixture
def loopback(tracing) -> Iterator[Loopback]:
    seen_metadata: list[dict[str, str]] = []
    handler_spans: list[trace.SpanContext] = []
    demo_tracer = tracing.provider.get_tracer("demo")

    def count(request: bytes, context: grpc.ServicerContext) -> Iterator[bytes]:
        seen_metadata.append({k: v for k, v in context.invocation_metadata() if isinstance(v, str)})
        handler_spans.append(trace.get_current_span().get_span_context())
        for i in range(int(request)):
            with demo_tracer.start_as_current_span(f"item {i}"):
                pass
            yield str(i).encode()

    def abort_after_one(request: bytes, context: grpc.ServicerContext) -> Iterator[bytes]:
        yield b"first"
        context.abort(grpc.StatusCode.INVALID_ARGUMENT, "limit: must be positive")

    def crash(request: bytes, context: grpc.ServicerContext) -> bytes:
        raise ValueError("broken handler")

    def not_found_without_raising(request: bytes, context: grpc.ServicerContext) -> bytes:
        context.set_code(grpc.StatusCode.NOT_FOUND)
        context.set_details("build_id: no such build")
        return b""

    demo = grpc.method_handlers_generic_handler("demo.v1.Demo", {
        "Count": grpc.unary_stream_rpc_method_handler(count),
        "AbortAfterOne": grpc.unary_stream_rpc_method_handler(abort_after_one),
        "Crash": grpc.unary_unary_rpc_method_handler(crash),
        "Missing": grpc.unary_unary_rpc_method_handler(not_found_without_raising),
    })
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=4),
                         interceptors=[server_interceptor(tracing.provider, untraced_services=())])
    servicer = health.HealthServicer()
    servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    health_pb2_grpc.add_HealthServicer_to_server(servicer, server)
    server.add_generic_rpc_handlers((demo,))
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    channel = grpc.intercept_channel(grpc.insecure_channel(f"127.0.0.1:{port}"), client_interceptor(tracing.provider))
    try:
        yield Loopback(channel, health_pb2_grpc.HealthStub(channel), seen_metadata, handler_spans)
    finally:
        channel.close()
        server.stop(grace=None).wait()


def _eventually(tracing, name: str, timeout_s: float = 10.0):
    """Server spans end on the server's threads, a moment after the client has its answer."""
    deadline = time.monotonic() + timeout_s
    while not any(s.name == name and s.kind == SpanKind.SERVER for s in tracing.spans()):
        assert time.monotonic() < deadline, [s.name for s in tracing.spans()]
        time.sleep(0.01)
    return _one(tracing, name, SpanKind.SERVER)


def _one(tracing, name: str, kind: SpanKind):
    found = [s for s in tracing.spans() if s.name == name and s.kind == kind]
    assert len(found) == 1, [(s.name, s.kind) for s in tracing.spans()]
    return found[0]


def test_rpc_names_and_attributes():
    assert rpc_attributes("/scicustom.builds.v1.BuildService/CreateBuild") == (
        "scicustom.builds.v1.BuildService/CreateBuild",
        {"rpc.system": "grpc", "rpc.service": "scicustom.builds.v1.BuildService", "rpc.method": "CreateBuild"})


def test_server_span_is_the_child_of_the_client_span(tracing, loopback):
    tracer = tracing.provider.get_tracer("test")
    with tracer.start_as_current_span("caller") as caller:
        reply = loopback.health.Check(health_pb2.HealthCheckRequest(service=""), timeout=10)
    assert reply.status == health_pb2.HealthCheckResponse.SERVING  # the result passes through unchanged
    server = _eventually(tracing, CHECK)
    client = _one(tracing, CHECK, SpanKind.CLIENT)
    trace_id = caller.get_span_context().trace_id
    assert client.context.trace_id == server.context.trace_id == trace_id
    assert client.parent.span_id == caller.get_span_context().span_id
    assert server.parent.span_id == client.context.span_id and server.parent.is_remote
    for span in (client, server):
        assert dict(span.attributes) == {"rpc.system": "grpc", "rpc.service": "grpc.health.v1.Health",
                                         "rpc.method": "Check", "rpc.grpc.status_code": 0}
        assert span.status.status_code == StatusCode.UNSET


def test_a_call_without_a_parent_starts_a_trace_that_the_server_joins(tracing, loopback):
    loopback.health.Check(health_pb2.HealthCheckRequest(service=""), timeout=10)
    server = _eventually(tracing, CHECK)
    client = _one(tracing, CHECK, SpanKind.CLIENT)
    assert client.parent is None
    assert server.parent.span_id == client.context.span_id
    assert server.context.trace_id == client.context.trace_id


def test_error_status_codes_reach_both_spans_and_the_caller_unchanged(tracing, loopback):
    with pytest.raises(grpc.RpcError) as raised:
        loopback.health.Check(health_pb2.HealthCheckRequest(service="no.such.Service"), timeout=10)
    assert raised.value.code() == grpc.StatusCode.NOT_FOUND
    server = _eventually(tracing, CHECK)
    client = _one(tracing, CHECK, SpanKind.CLIENT)
    for span in (client, server):
        assert span.attributes["rpc.grpc.status_code"] == grpc.StatusCode.NOT_FOUND.value[0] == 5
        assert span.status.status_code == StatusCode.ERROR
        assert span.status.description.startswith("NOT_FOUND")


def test_a_code_set_without_raising_is_the_span_status(tracing, loopback):
    with pytest.raises(grpc.RpcError) as raised:
        loopback.channel.unary_unary("/demo.v1.Demo/Missing")(b"", timeout=10)
    assert raised.value.code() == grpc.StatusCode.NOT_FOUND
    server = _eventually(tracing, "demo.v1.Demo/Missing")
    assert server.attributes["rpc.grpc.status_code"] == 5
    assert server.status.description == "NOT_FOUND: build_id: no such build"


def test_an_escaping_exception_is_recorded_as_unknown(tracing, loopback):
    with pytest.raises(grpc.RpcError) as raised:
        loopback.channel.unary_unary("/demo.v1.Demo/Crash")(b"", timeout=10)
    assert raised.value.code() == grpc.StatusCode.UNKNOWN
    server = _eventually(tracing, "demo.v1.Demo/Crash")
    assert server.attributes["rpc.grpc.status_code"] == 2
    assert server.status.status_code == StatusCode.ERROR
    assert [e.attributes["exception.type"] for e in server.events] == ["ValueError"]
    client = _one(tracing, "demo.v1.Demo/Crash", SpanKind.CLIENT)
    assert client.attributes["rpc.grpc.status_code"] == 2


def test_server_streaming_runs_in_the_server_span_and_keeps_caller_metadata(tracing, loopback):
    tracer = tracing.provider.get_tracer("test")
    count = loopback.channel.unary_stream("/demo.v1.Demo/Count")
    with tracer.start_as_current_span("caller"):
        replies = list(count(b"3", timeout=10, metadata=(("x-request-id", "r-17"),)))
    assert replies == [b"0", b"1", b"2"]
    server = _eventually(tracing, "demo.v1.Demo/Count")
    client = _one(tracing, "demo.v1.Demo/Count", SpanKind.CLIENT)
    assert server.parent.span_id == client.context.span_id
    assert server.attributes["rpc.grpc.status_code"] == 0
    assert loopback.handler_spans == [server.context]
    items = [s for s in tracing.spans() if s.name.startswith("item ")]
    assert [s.name for s in items] == ["item 0", "item 1", "item 2"]
    assert all(s.parent.span_id == server.context.span_id for s in items)
    metadata = loopback.seen_metadata[0]
    assert metadata["x-request-id"] == "r-17"
    flags = int(client.context.trace_flags)
    assert metadata["traceparent"] == f"00-{client.context.trace_id:032x}-{client.context.span_id:016x}-{flags:02x}"


def test_an_abort_mid_stream_ends_the_span_with_its_code(tracing, loopback):
    replies = loopback.channel.unary_stream("/demo.v1.Demo/AbortAfterOne")(b"", timeout=10)
    assert next(replies) == b"first"
    with pytest.raises(grpc.RpcError) as raised:
        next(replies)
    assert raised.value.code() == grpc.StatusCode.INVALID_ARGUMENT
    server = _eventually(tracing, "demo.v1.Demo/AbortAfterOne")
    assert server.attributes["rpc.grpc.status_code"] == 3
    assert server.status.description == "INVALID_ARGUMENT: limit: must be positive"
    assert server.events == ()  # an abort is an answer, not a crash


def test_a_cancelled_watch_ends_both_spans_as_cancelled(tracing, loopback):
    watch = loopback.health.Watch(health_pb2.HealthCheckRequest(service=""))
    assert next(watch).status == health_pb2.HealthCheckResponse.SERVING
    watch.cancel()
    server = _eventually(tracing, WATCH)
    client = _one(tracing, WATCH, SpanKind.CLIENT)
    assert server.parent.span_id == client.context.span_id
    assert client.attributes["rpc.grpc.status_code"] == server.attributes["rpc.grpc.status_code"] == 1


def test_a_future_call_ends_its_span_when_it_completes(tracing, loopback):
    future = loopback.health.Check.future(health_pb2.HealthCheckRequest(service=""), timeout=10)
    assert future.result().status == health_pb2.HealthCheckResponse.SERVING
    server = _eventually(tracing, CHECK)
    client = _one(tracing, CHECK, SpanKind.CLIENT)
    assert server.parent.span_id == client.context.span_id
    assert client.end_time is not None and client.attributes["rpc.grpc.status_code"] == 0



@pytest.mark.parametrize(("method", "traced"), [
    ("/grpc.health.v1.Health/Check", False), ("/grpc.health.v1.Health/Watch", False),
    ("/grpc.reflection.v1.ServerReflection/ServerReflectionInfo", False),
    ("/scicustom.builds.v1.BuildService/GetBuild", True)])
def test_probes_and_reflection_are_left_untraced_by_default(tracing, method, traced):
    handler = grpc.unary_unary_rpc_method_handler(lambda request, context: request)
    details = SimpleNamespace(method=method, invocation_metadata=())
    wrapped = server_interceptor(tracing.provider).intercept_service(lambda _: handler, details)
    assert (wrapped is not handler) is traced
    assert server_interceptor(tracing.provider, untraced_services=()).intercept_service(
        lambda _: handler, details) is not handler
