"""The shared server runtime: health, reflection, status mapping, deadlines, size limits, shutdown."""

from __future__ import annotations

import logging
import os
import signal
import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass

import grpc
import pytest
from grpc_health.v1 import health_pb2
from opentelemetry.sdk.trace import TracerProvider

from scicustom.core.errors import InvalidInput, NotFound, PreconditionFailed
from scicustom.grpc_server.request_log import LOGGER_NAME, RequestLogInterceptor
from scicustom.grpc_server.server import HEALTH_SERVICE, build_server, serve, shut_down, start_server
from scicustom.grpc_server.status_mapping import INTERNAL_MESSAGE, StatusMappingInterceptor, check_deadline
from tests.support.grpc_loopback import (
    PROBE_SERVICE,
    health_status,
    loopback,
    probe_binding,
    reflected_services,
    rpc_error,
)

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


def _echo(request: bytes, context: grpc.ServicerContext) -> bytes:
    return request


def _raises(exc: Exception):
    def handler(request: bytes, context: grpc.ServicerContext) -> bytes:
        raise exc
    return handler


def _call(channel: grpc.Channel, method: str, payload: bytes = b"x", timeout: float = 5.0) -> bytes:
    return channel.unary_unary(f"/{PROBE_SERVICE}/{method}")(payload, timeout=timeout)


def test_health_serves_overall_and_each_service_and_reflection_lists_them():
    with loopback([probe_binding({"Echo": _echo})]) as channel:
        assert health_status(channel, "") == SERVING
        assert health_status(channel, PROBE_SERVICE) == SERVING
        error = rpc_error(lambda: health_status(channel, "no.such.Service"))
        assert error.code() == grpc.StatusCode.NOT_FOUND
        assert reflected_services(channel) == {PROBE_SERVICE, HEALTH_SERVICE,
                                               "grpc.reflection.v1alpha.ServerReflection"}
        assert _call(channel, "Echo", b"hello") == b"hello"


@pytest.mark.parametrize(("exc", "code", "details"), [
    (InvalidInput("texts[3]", "is empty"), grpc.StatusCode.INVALID_ARGUMENT, "texts[3]: is empty"),
    (NotFound("unit_id", "no unit 'x'"), grpc.StatusCode.NOT_FOUND, "unit_id: no unit 'x'"),
    (PreconditionFailed("the corpus is not tagged yet"), grpc.StatusCode.FAILED_PRECONDITION,
     "the corpus is not tagged yet"),
])
def test_domain_errors_become_their_status_codes(exc, code, details):
    with loopback([probe_binding({"Fail": _raises(exc)})]) as channel:
        error = rpc_error(lambda: _call(channel, "Fail"))
    assert (error.code(), error.details()) == (code, details)


def test_an_unexpected_error_is_internal_with_a_generic_message_and_a_logged_traceback(caplog):
    with caplog.at_level(logging.ERROR, logger="scicustom.grpc_server.status_mapping"), \
            loopback([probe_binding({"Fail": _raises(KeyError("/secret/path"))})]) as channel:
        error = rpc_error(lambda: _call(channel, "Fail"))
    assert (error.code(), error.details()) == (grpc.StatusCode.INTERNAL, INTERNAL_MESSAGE)
    (record,) = [r for r in caplog.records if r.name == "scicustom.grpc_server.status_mapping"]
    assert f"/{PROBE_SERVICE}/Fail failed" in record.getMessage()
    assert record.exc_info is not None and record.exc_info[0] is KeyError


def test_a_status_the_servicer_chose_is_kept():
    def busy(request: bytes, context: grpc.ServicerContext) -> bytes:
        context.abort(grpc.StatusCode.ABORTED, "busy")
        return b""

    with loopback([probe_binding({"Busy": busy})]) as channel:
        error = rpc_error(lambda: _call(channel, "Busy"))
    assert (error.code(), error.details()) == (grpc.StatusCode.ABORTED, "busy")


def test_a_server_stream_sends_what_it_made_then_the_mapped_status():
    def two_then_bad(request: bytes, context: grpc.ServicerContext) -> Iterator[bytes]:
        yield b"1"
        yield b"2"
        raise InvalidInput("page_token", "is stale")

    received: list[bytes] = []
    with loopback([probe_binding(streams={"Stream": two_then_bad})]) as channel:
        call = channel.unary_stream(f"/{PROBE_SERVICE}/Stream")(b"", timeout=5)
        error = rpc_error(lambda: received.extend(call))
    assert received == [b"1", b"2"]
    assert (error.code(), error.details()) == (grpc.StatusCode.INVALID_ARGUMENT, "page_token: is stale")


@dataclass(frozen=True)
class _Details:
    method: str
    invocation_metadata: tuple[tuple[str, str], ...] = ()


class _Aborted(Exception):
    pass


class _ExpiredContext:
    """A servicer context whose caller's deadline has passed."""

    def __init__(self) -> None:
        self.aborted: tuple[grpc.StatusCode, str] | None = None

    def time_remaining(self) -> float:
        return 0.0

    def abort(self, code: grpc.StatusCode, details: str) -> None:
        self.aborted = (code, details)
        raise _Aborted

    def code(self) -> grpc.StatusCode | None:
        return self.aborted[0] if self.aborted else None


def test_a_handler_is_not_run_once_the_deadline_has_passed():
    ran = []
    handler = grpc.unary_unary_rpc_method_handler(lambda request, context: ran.append(request))
    details = _Details("/p.S/M")
    wrapped = StatusMappingInterceptor().intercept_service(lambda d: handler, details)
    context = _ExpiredContext()
    with pytest.raises(_Aborted):
        wrapped.unary_unary(b"x", context)
    assert ran == [] and context.aborted is not None
    assert context.aborted[0] == grpc.StatusCode.DEADLINE_EXCEEDED


def test_a_servicer_stops_its_work_once_the_callers_deadline_has_passed():
    entered, release, finished, work_done = (threading.Event() for _ in range(4))

    def slow(request: bytes, context: grpc.ServicerContext) -> bytes:
        try:
            entered.set()
            release.wait(10)
            check_deadline(context)  # between two steps of long work
            work_done.set()
            return b"late"
        finally:
            finished.set()

    with loopback([probe_binding({"Slow": slow})]) as channel:
        error = rpc_error(lambda: _call(channel, "Slow", timeout=0.5))
        assert error.code() == grpc.StatusCode.DEADLINE_EXCEEDED
        assert entered.is_set()
        release.set()
        assert finished.wait(10)
    assert not work_done.is_set()


def test_messages_above_the_size_limit_are_refused_both_ways():
    def big(request: bytes, context: grpc.ServicerContext) -> bytes:
        return b"y" * 3000

    with loopback([probe_binding({"Echo": _echo, "Big": big})], max_message_bytes=2048) as channel:
        assert _call(channel, "Echo", b"x" * 1500) == b"x" * 1500
        error = rpc_error(lambda: _call(channel, "Echo", b"x" * 3000))
        assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert rpc_error(lambda: _call(channel, "Big")).code() == grpc.StatusCode.RESOURCE_EXHAUSTED


def test_graceful_shutdown_refuses_new_calls_and_lets_the_call_in_flight_finish():
    entered, release = threading.Event(), threading.Event()

    def held(request: bytes, context: grpc.ServicerContext) -> bytes:
        entered.set()
        release.wait(10)
        return b"finished"

    server, health, port = start_server([probe_binding({"Held": held, "Echo": _echo})], "127.0.0.1", 0,
                                        max_message_bytes=1024)
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    in_flight = channel.unary_unary(f"/{PROBE_SERVICE}/Held").future(b"", timeout=20)
    assert entered.wait(10)
    stopper = threading.Thread(target=shut_down, args=(server, health, 20.0))
    stopper.start()
    probe = health_pb2.HealthCheckRequest(service=PROBE_SERVICE)
    for _ in range(200):
        if health.Check(probe, None).status == NOT_SERVING:
            break
        time.sleep(0.01)
    assert health.Check(probe, None).status == NOT_SERVING
    assert health.Check(health_pb2.HealthCheckRequest(service=""), None).status == NOT_SERVING
    # Health turns NOT_SERVING just before the server stops accepting: a call may slip in between.
    for _ in range(200):
        try:
            _call(channel, "Echo", timeout=2)
        except grpc.RpcError as error:
            # Refused at the door, or accepted in the last instant and cancelled by the stop.
            assert error.code() in (grpc.StatusCode.UNAVAILABLE, grpc.StatusCode.CANCELLED)
            break
        time.sleep(0.01)
    else:
        raise AssertionError("new calls were still accepted during shutdown")
    assert stopper.is_alive()  # still waiting for the call in flight
    release.set()
    assert in_flight.result(timeout=10) == b"finished"
    stopper.join(10)
    assert not stopper.is_alive()
    channel.close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_serve_runs_until_sigterm_then_stops_and_restores_the_signal_handlers(caplog):
    port = _free_port()
    seen: list[int] = []

    def stop_when_serving() -> None:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            grpc.channel_ready_future(channel).result(timeout=10)
            seen.append(health_status(channel, PROBE_SERVICE))
        os.kill(os.getpid(), signal.SIGTERM)

    before = signal.getsignal(signal.SIGTERM)
    thread = threading.Thread(target=stop_when_serving)
    thread.start()
    with caplog.at_level(logging.INFO, logger="scicustom.grpc_server.server"):
        serve([probe_binding({"Echo": _echo})], "127.0.0.1", port, grace_s=1.0, max_message_bytes=1024)
    thread.join(10)
    assert seen == [SERVING]
    assert signal.getsignal(signal.SIGTERM) is before
    assert f"serving {PROBE_SERVICE} on 127.0.0.1:{port}" in caplog.text
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        assert rpc_error(lambda: health_status(channel, "")).code() == grpc.StatusCode.UNAVAILABLE


def test_bad_server_settings_are_refused():
    with pytest.raises(InvalidInput, match="distinct"):
        build_server([probe_binding(), probe_binding()], max_message_bytes=1024)
    with pytest.raises(InvalidInput, match="grpc_max_message_bytes"):
        build_server([], max_message_bytes=0)
    with pytest.raises(InvalidInput, match="port: 70000 is not a port"):
        start_server([], "127.0.0.1", 70000, max_message_bytes=1024)
    server, _, port = start_server([], "127.0.0.1", 0, max_message_bytes=1024)
    try:
        with pytest.raises(PreconditionFailed, match=f"cannot listen on 127.0.0.1:{port}"):
            start_server([], "127.0.0.1", port, max_message_bytes=1024)
    finally:
        server.stop(None)


def test_one_log_line_per_rpc_with_the_mapped_code_and_the_peer(caplog):
    with caplog.at_level(logging.INFO, logger=LOGGER_NAME), \
            loopback([probe_binding({"Echo": _echo, "Fail": _raises(InvalidInput("text", "is empty"))})]) as channel:
        _call(channel, "Echo")
        rpc_error(lambda: _call(channel, "Fail"))
    lines = [r for r in caplog.records if r.name == LOGGER_NAME]
    assert [(r.rpc_method, r.rpc_code, r.levelno) for r in lines] == [
        (f"/{PROBE_SERVICE}/Echo", "OK", logging.INFO), (f"/{PROBE_SERVICE}/Fail", "INVALID_ARGUMENT", logging.INFO)]
    for record in lines:
        assert record.rpc_peer.startswith("ipv4:127.0.0.1:") and record.rpc_duration_ms >= 0
        assert record.rpc_trace_id == "" and "trace_id" not in record.getMessage()


def test_the_log_line_carries_the_trace_id_of_the_span_the_handler_runs_in(caplog):
    class _Context:
        def code(self) -> None:
            return None

        def peer(self) -> str:
            return "ipv4:10.0.0.1:5000"

    ticks = iter([1.0, 1.25])
    handler = grpc.unary_unary_rpc_method_handler(lambda request, context: b"ok")
    details = _Details("/p.S/M")
    wrapped = RequestLogInterceptor(clock=lambda: next(ticks)).intercept_service(lambda d: handler, details)
    tracer = TracerProvider().get_tracer("test")
    with caplog.at_level(logging.INFO, logger=LOGGER_NAME), tracer.start_as_current_span("rpc") as span:
        assert wrapped.unary_unary(b"", _Context()) == b"ok"
    trace_id = format(span.get_span_context().trace_id, "032x")
    (record,) = caplog.records
    # The message leaves the id to the formatter, which appends the active span's; the record has it.
    assert record.getMessage() == "rpc method=/p.S/M code=OK duration_ms=250.0 peer=ipv4:10.0.0.1:5000"
    assert record.rpc_trace_id == trace_id
    assert len(trace_id) == 32 and trace_id != "0" * 32
