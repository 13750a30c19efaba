"""Bounded concurrency per method: RESOURCE_EXHAUSTED instead of a server whose threads are all held.

A streaming call (either side) takes a slot of its method (ServerCapacity.stream_limit) and one of
the streams' (max_streams); every call but a health check takes one of max_in_flight. A call that
finds no slot is refused at once with a message naming the limit, so the caller can back off; health
checks are never counted, and with every slot taken the pool still has its reserved threads for them
(capacity.py). A slot is taken on the call's own pool thread and given back when its behaviour
returns, raises or (a stream) is closed because the caller went away, so nothing leaks when grpc
refuses a call before running it.

Registered after authentication (an unauthenticated call never takes a slot) and outside the status
mapping, whose INTERNAL fallback must not rewrite the refusal.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from typing import Any

import grpc

from scicustom.grpc_server.capacity import ServerCapacity
from scicustom.grpc_server.handler_wrapping import StreamBehaviour, UnaryBehaviour, method_of, rewrap

HEALTH_CHECK = "/grpc.health.v1.Health/Check"


class ConcurrencyLimitInterceptor(grpc.ServerInterceptor):
    def __init__(self, capacity: ServerCapacity) -> None:
        self.capacity = capacity
        self._lock = threading.Lock()
        self._in_flight = 0
        self._streams = 0
        self._by_method: dict[str, int] = {}

    def running(self, method: str | None = None) -> int:
        """Calls holding a slot now: of `method` ("/package.Service/Method"), or all of them."""
        with self._lock:
            return self._in_flight if method is None else self._by_method.get(method, 0)

    def intercept_service(self, continuation: Callable[[grpc.HandlerCallDetails], grpc.RpcMethodHandler | None],
                          handler_call_details: grpc.HandlerCallDetails) -> grpc.RpcMethodHandler | None:
        handler = continuation(handler_call_details)
        method = method_of(handler_call_details)
        if handler is None or method == HEALTH_CHECK:
            return handler
        streaming = bool(handler.request_streaming or handler.response_streaming)

        def unary(behaviour: UnaryBehaviour) -> UnaryBehaviour:
            def run(request: Any, context: grpc.ServicerContext) -> Any:
                self._enter(method, streaming, context)
                try:
                    return behaviour(request, context)
                finally:
                    self._leave(method, streaming)
            return run

        def stream(behaviour: StreamBehaviour) -> StreamBehaviour:
            def run(request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
                self._enter(method, streaming, context)
                try:
                    yield from behaviour(request, context)
                finally:  # also on GeneratorExit: grpc closes the stream of a caller that left
                    self._leave(method, streaming)
            return run

        return rewrap(handler, unary, stream)

    def _enter(self, method: str, streaming: bool, context: grpc.ServicerContext) -> None:
        refusal = self._admit(method, streaming)
        if refusal:
            context.abort(grpc.StatusCode.RESOURCE_EXHAUSTED, f"{refusal}; retry later")

    def _admit(self, method: str, streaming: bool) -> str:
        """Takes the call's slots and returns "", or returns why it cannot have them."""
        c = self.capacity
        with self._lock:
            if self._in_flight >= c.max_in_flight:
                return f"the server is at its limit of {c.max_in_flight} calls in flight"
            if streaming:
                limit = c.stream_limit(method)
                if self._by_method.get(method, 0) >= limit:
                    return f"{method.lstrip('/')} is at its limit of {limit} open streams"
                if self._streams >= c.max_streams:
                    return f"the server is at its limit of {c.max_streams} open streams"
                self._streams += 1
            self._in_flight += 1
            self._by_method[method] = self._by_method.get(method, 0) + 1
            return ""

    def _leave(self, method: str, streaming: bool) -> None:
        with self._lock:
            self._in_flight -= 1
            self._streams -= streaming
            self._by_method[method] -= 1
