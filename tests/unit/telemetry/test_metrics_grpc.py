"""RPC metrics on a real loopback gRPC server, scraped over HTTP from the metrics endpoint: counts by
method and status code, latency buckets, exemplars with the trace id, health and reflection intact."""

from __future__ import annotations

import socket
from collections.abc import Iterator

import grpc
import pytest
from grpc_health.v1 import health_pb2

from scicustom.config import Settings
from scicustom.core.errors import InvalidInput, PreconditionFailed
from scicustom.grpc_server.request_log import RequestLogInterceptor
from scicustom.grpc_server.rpc_metrics import RpcMetricsInterceptor
from scicustom.grpc_server.status_mapping import StatusMappingInterceptor
from scicustom.telemetry.grpc_tracing import server_interceptor
from scicustom.telemetry.metrics import RPC_BUCKETS, PlatformMetrics
from scicustom.telemetry.metrics_endpoint import (
    DEFAULT_METRICS_PORT,
    MetricsEndpoint,
    configured_port,
    start_metrics_endpoint,
)
from tests.support.grpc_loopback import (
    PROBE_SERVICE,
    health_status,
    loopback,
    probe_binding,
    reflected_services,
    rpc_error,
)
from tests.unit.telemetry.prometheus_scrape import scrape


def _echo(request: bytes, context: grpc.ServicerContext) -> bytes:
    return request


def _invalid(request: bytes, context: grpc.ServicerContext) -> bytes:
    raise InvalidInput("text", "is empty")


def _crash(request: bytes, context: grpc.ServicerContext) -> bytes:
    raise RuntimeError("broken handler")


def _count(request: bytes, context: grpc.ServicerContext) -> Iterator[bytes]:
    for i in range(int(request)):
        yield str(i).encode()


BINDING = probe_binding({"Echo": _echo, "Invalid": _invalid, "Crash": _crash}, {"Count": _count})


@pytest.fixture
def metrics() -> PlatformMetrics:
    return PlatformMetrics()  # a registry of its own: counts start at zero


@pytest.fixture
def endpoint(metrics: PlatformMetrics) -> Iterator[MetricsEndpoint]:
    served = start_metrics_endpoint("127.0.0.1", 0, metrics)
    yield served
    served.stop()


def _unary(channel: grpc.Channel, method: str, payload: bytes = b"x") -> bytes:
    return channel.unary_unary(f"/{PROBE_SERVICE}/{method}")(payload, timeout=5)


def test_requests_are_counted_by_method_and_code_with_latency_buckets(metrics, endpoint):
    chain = [RpcMetricsInterceptor(metrics), RequestLogInterceptor(), StatusMappingInterceptor()]
    with loopback([BINDING], interceptors=chain) as channel:
        for _ in range(3):
            assert _unary(channel, "Echo") == b"x"
        assert rpc_error(lambda: _unary(channel, "Invalid")).code() == grpc.StatusCode.INVALID_ARGUMENT
        assert rpc_error(lambda: _unary(channel, "Crash")).code() == grpc.StatusCode.INTERNAL
        assert list(channel.unary_stream(f"/{PROBE_SERVICE}/Count")(b"4", timeout=5)) == [b"0", b"1", b"2", b"3"]
        # Health checking and reflection still answer, and are not counted.
        assert health_status(channel, "") == health_pb2.HealthCheckResponse.SERVING
        assert PROBE_SERVICE in reflected_services(channel)
        assert rpc_error(lambda: _unary(channel, "NoSuchMethod")).code() == grpc.StatusCode.UNIMPLEMENTED

    assert endpoint.port != 0 and endpoint.url == f"http://127.0.0.1:{endpoint.port}/metrics"
    page = scrape(endpoint.url)
    assert page.content_type.startswith("text/plain")
    requests = "scicustom_rpc_requests_total"
    assert page.types["scicustom_rpc_requests"] == "counter"
    assert page.value(requests, service=PROBE_SERVICE, method="Echo", code="OK") == 3
    assert page.value(requests, service=PROBE_SERVICE, method="Invalid", code="INVALID_ARGUMENT") == 1
    assert page.value(requests, service=PROBE_SERVICE, method="Crash", code="INTERNAL") == 1
    assert page.value(requests, service=PROBE_SERVICE, method="Count", code="OK") == 1
    assert {s.labels["service"] for s in page.find(requests)} == {PROBE_SERVICE}  # no health, no reflection
    assert not [s for s in page.find(requests) if s.labels["method"] == "NoSuchMethod"]

    buckets = page.find("scicustom_rpc_latency_seconds_bucket", service=PROBE_SERVICE, method="Echo")
    assert [float(s.labels["le"]) for s in buckets] == [*RPC_BUCKETS, float("inf")]
    counts = [s.value for s in buckets]
    assert counts == sorted(counts) and counts[-1] == 3  # cumulative, every call in +Inf
    assert page.value("scicustom_rpc_latency_seconds_count", service=PROBE_SERVICE, method="Count") == 1
    assert 0 < page.value("scicustom_rpc_latency_seconds_sum", service=PROBE_SERVICE, method="Echo") < 5
    assert page.value("scicustom_rpc_in_flight", service=PROBE_SERVICE, method="Echo") == 0
    assert page.find("process_cpu_seconds_total") and page.find("python_info")  # the process collectors


def test_latency_exemplars_carry_the_trace_id_of_the_server_span(metrics, endpoint, tracing):
    chain = [server_interceptor(tracing.provider), RpcMetricsInterceptor(metrics), StatusMappingInterceptor()]
    with loopback([BINDING], interceptors=chain) as channel:
        _unary(channel, "Echo")
        rpc_error(lambda: _unary(channel, "Invalid"))
    spans = {s.name: s.context for s in tracing.spans()}

    page = scrape(endpoint.url, openmetrics=True)
    assert page.content_type.startswith("application/openmetrics-text")
    for method in ("Echo", "Invalid"):
        (bucket,) = [s for s in page.find("scicustom_rpc_latency_seconds_bucket", method=method) if s.exemplar]
        context = spans[f"{PROBE_SERVICE}/{method}"]
        assert bucket.exemplar.labels == {"trace_id": format(context.trace_id, "032x"),
                                          "span_id": format(context.span_id, "016x")}
        assert bucket.exemplar.value <= float(bucket.labels["le"])
    # The Prometheus text format has no exemplars; the counts are the same.
    plain = scrape(endpoint.url)
    assert not [s for s in plain.samples if s.exemplar]
    assert plain.value("scicustom_rpc_requests_total", method="Echo", code="OK") == 1


def test_no_exemplar_without_a_sampled_span(metrics, endpoint):
    with loopback([BINDING], interceptors=[RpcMetricsInterceptor(metrics)]) as channel:
        _unary(channel, "Echo")
    page = scrape(endpoint.url, openmetrics=True)
    assert page.value("scicustom_rpc_latency_seconds_count", method="Echo") == 1
    assert not [s for s in page.samples if s.exemplar]


def test_the_port_setting_defaults_by_profile_and_0_turns_the_endpoint_off():
    assert configured_port(Settings(profile="local")) == 0
    assert configured_port(Settings(profile="cluster")) == DEFAULT_METRICS_PORT
    assert configured_port(Settings(profile="cluster", metrics_port=0)) == 0
    assert configured_port(Settings(profile="local", metrics_port=9100)) == 9100
    with pytest.raises(ValueError, match="metrics_port"):
        Settings(metrics_port=70000)


def test_a_taken_port_is_a_precondition_failure(metrics):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        with pytest.raises(PreconditionFailed, match=r"cannot serve metrics on 127\.0\.0\.1"):
            start_metrics_endpoint("127.0.0.1", taken.getsockname()[1], metrics)

