"""One structured log line per RPC: method, status code, duration, peer and the trace id.

The line is logfmt (`rpc method=... code=OK duration_ms=1.2 peer=...`; the log formatter appends
the trace id) and the fields ride on the record as `rpc_*` attributes, `rpc_trace_id` included,
for the JSON formatter. The trace id is that of the span current while the handler runs, so the
tracing interceptor must come before this one.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from typing import Any

import grpc
from opentelemetry import trace

from scicustom.grpc_server.handler_wrapping import StreamBehaviour, UnaryBehaviour, method_of, rewrap

LOGGER_NAME = "scicustom.grpc_server.requests"
# Codes that say the server failed, not the caller: logged as warnings.
SERVER_FAULTS = frozenset({grpc.StatusCode.INTERNAL, grpc.StatusCode.UNKNOWN, grpc.StatusCode.DATA_LOSS,
                           grpc.StatusCode.UNAVAILABLE})


def current_trace_id() -> str:
    """The current span's trace id as 32 hex digits, or "" when no span is active."""
    context = trace.get_current_span().get_span_context()
    return format(context.trace_id, "032x") if context.is_valid else ""


class RequestLogInterceptor(grpc.ServerInterceptor):
    def __init__(self, logger: logging.Logger | None = None, clock: Callable[[], float] = time.perf_counter) -> None:
        self._log = logger or logging.getLogger(LOGGER_NAME)
        self._clock = clock

    def intercept_service(self, continuation: Callable[[grpc.HandlerCallDetails], grpc.RpcMethodHandler | None],
                          handler_call_details: grpc.HandlerCallDetails) -> grpc.RpcMethodHandler | None:
        handler = continuation(handler_call_details)
        if handler is None:
            return None
        method = method_of(handler_call_details)

        def unary(behaviour: UnaryBehaviour) -> UnaryBehaviour:
            def run(request: Any, context: grpc.ServicerContext) -> Any:
                start, trace_id, failed = self._clock(), current_trace_id(), True
                try:
                    response = behaviour(request, context)
                    failed = False
                    return response
                finally:
                    self._emit(method, context, start, trace_id, grpc.StatusCode.UNKNOWN if failed else None)
            return run

        def stream(behaviour: StreamBehaviour) -> StreamBehaviour:
            def run(request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
                start, trace_id = self._clock(), current_trace_id()
                fallback: grpc.StatusCode | None = grpc.StatusCode.UNKNOWN
                try:
                    yield from behaviour(request, context)
                    fallback = None
                except GeneratorExit:  # the caller went away mid-stream
                    fallback = grpc.StatusCode.CANCELLED
                    raise
                finally:
                    self._emit(method, context, start, trace_id, fallback)
            return run

        return rewrap(handler, unary, stream)

    def _emit(self, method: str, context: grpc.ServicerContext, start: float, trace_id: str,
              fallback: grpc.StatusCode | None) -> None:
        """`fallback`: the code when the handler raised without setting one (None: it returned)."""
        code = context.code() or fallback or grpc.StatusCode.OK
        fields = {"rpc_method": method, "rpc_code": code.name,
                  "rpc_duration_ms": round((self._clock() - start) * 1000, 1),
                  "rpc_peer": context.peer(), "rpc_trace_id": trace_id}
        level = logging.WARNING if code in SERVER_FAULTS else logging.INFO
        # The log formatter appends the active span's trace id (the tracing interceptor runs outside).
        self._log.log(level, "rpc method=%s code=%s duration_ms=%.1f peer=%s", method, code.name,
                      fields["rpc_duration_ms"], fields["rpc_peer"], extra=fields)
