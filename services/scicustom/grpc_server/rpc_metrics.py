"""RPC rate, latency and errors by method: scicustom_rpc_requests_total{service,method,code},
scicustom_rpc_latency_seconds{service,method} and scicustom_rpc_in_flight{service,method}.

Registered inside the tracing interceptor, so the server span is current when the latency is
observed (its trace id becomes the exemplar), and outside the status mapping, so the code counted
is the one the caller receives. Health checks and reflection are not counted (probes would drown
the traffic that matters), and neither are unknown methods (grpc answers UNIMPLEMENTED before any
handler, and their names come from the caller).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Iterator
from typing import Any

import grpc

from scicustom.grpc_server.handler_wrapping import StreamBehaviour, UnaryBehaviour, method_of, rewrap
from scicustom.telemetry.grpc_tracing import INFRASTRUCTURE_SERVICES
from scicustom.telemetry.metrics import PlatformMetrics, process_metrics


class RpcMetricsInterceptor(grpc.ServerInterceptor):
    def __init__(self, metrics: PlatformMetrics | None = None, *,
                 unmeasured_services: Collection[str] = INFRASTRUCTURE_SERVICES,
                 clock: Callable[[], float] = time.perf_counter) -> None:
        self._metrics = metrics or process_metrics()
        self._unmeasured = frozenset(unmeasured_services)
        self._clock = clock

    def intercept_service(self, continuation: Callable[[grpc.HandlerCallDetails], grpc.RpcMethodHandler | None],
                          handler_call_details: grpc.HandlerCallDetails) -> grpc.RpcMethodHandler | None:
        handler = continuation(handler_call_details)
        if handler is None:
            return None
        service, _, method = method_of(handler_call_details).lstrip("/").rpartition("/")
        if service in self._unmeasured:
            return handler

        def unary(behaviour: UnaryBehaviour) -> UnaryBehaviour:
            def run(request: Any, context: grpc.ServicerContext) -> Any:
                start = self._begin(service, method)
                fallback: grpc.StatusCode | None = grpc.StatusCode.UNKNOWN
                try:
                    response = behaviour(request, context)
                    fallback = None
                    return response
                finally:
                    self._end(service, method, context, start, fallback)
            return run

        def stream(behaviour: StreamBehaviour) -> StreamBehaviour:
            def run(request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
                start = self._begin(service, method)
                fallback: grpc.StatusCode | None = grpc.StatusCode.UNKNOWN
                try:
                    yield from behaviour(request, context)
                    fallback = None
                except GeneratorExit:  # the caller went away mid-stream
                    fallback = grpc.StatusCode.CANCELLED
                    raise
                finally:
                    self._end(service, method, context, start, fallback)
            return run

        return rewrap(handler, unary, stream)

    def _begin(self, service: str, method: str) -> float:
        self._metrics.rpc_in_flight.labels(service, method).inc()
        return self._clock()

    def _end(self, service: str, method: str, context: grpc.ServicerContext, start: float,
             fallback: grpc.StatusCode | None) -> None:
        """`fallback`: the code when the handler raised without setting one (None: it returned)."""
        code = context.code() or fallback or grpc.StatusCode.OK
        m = self._metrics
        m.rpc_in_flight.labels(service, method).dec()
        m.rpc_requests.labels(service, method, code.name).inc()
        m.observe(m.rpc_latency, self._clock() - start, service, method)
