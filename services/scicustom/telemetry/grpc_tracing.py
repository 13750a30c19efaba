"""gRPC interceptors: a SERVER span per handled RPC, a CLIENT span per call, W3C trace context in
the metadata between them (the global propagator: `traceparent`/`tracestate` unless
OTEL_PROPAGATORS says otherwise).

Span name `<package.Service>/<Method>`; attributes rpc.system, rpc.service, rpc.method and
rpc.grpc.status_code; status ERROR for any code but OK.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator
from typing import Any, NamedTuple

import grpc
from opentelemetry import propagate, trace
from opentelemetry.context import Context
from opentelemetry.trace import Span, SpanKind, Status, StatusCode

INSTRUMENTATION_NAME = "scicustom.telemetry.grpc"
# Probes call these every few seconds; a span each would bury the traces that matter.
INFRASTRUCTURE_SERVICES = frozenset({"grpc.health.v1.Health", "grpc.reflection.v1.ServerReflection",
                                     "grpc.reflection.v1alpha.ServerReflection"})


def rpc_attributes(full_method: str) -> tuple[str, dict[str, str]]:
    """'/pkg.Service/Method' -> ('pkg.Service/Method', rpc.* attributes)."""
    name = full_method.lstrip("/")
    service, _, method = name.rpartition("/")
    return name, {"rpc.system": "grpc", "rpc.service": service, "rpc.method": method}


def finish_rpc_span(span: Span, code: grpc.StatusCode, details: str = "") -> None:
    span.set_attribute("rpc.grpc.status_code", code.value[0])
    if code != grpc.StatusCode.OK:
        span.set_status(Status(StatusCode.ERROR, f"{code.name}: {details}" if details else code.name))


def _text_metadata(metadata: Any) -> dict[str, str]:
    """Invocation metadata as a carrier: text values only (binary `-bin` keys carry no context)."""
    carrier: dict[str, str] = {}
    for key, value in metadata or ():
        if isinstance(value, str):
            carrier.setdefault(key.lower(), value)
    return carrier


def _decoded(details: bytes | str | None) -> str:
    if isinstance(details, bytes):
        return details.decode("utf-8", "replace")
    return details or ""


class TracingServerInterceptor(grpc.ServerInterceptor):  # type: ignore[misc]  # grpc is untyped
    """Runs every handler inside a SERVER span that continues the caller's trace, except the
    handlers of `untraced_services` (full service names)."""

    def __init__(self, tracer_provider: trace.TracerProvider | None = None, *,
                 untraced_services: Collection[str] = INFRASTRUCTURE_SERVICES) -> None:
        self._tracer = trace.get_tracer(INSTRUMENTATION_NAME, tracer_provider=tracer_provider)
        self._untraced = frozenset(untraced_services)

    def intercept_service(self, continuation: Callable[[grpc.HandlerCallDetails], grpc.RpcMethodHandler | None],
                          handler_call_details: grpc.HandlerCallDetails) -> grpc.RpcMethodHandler | None:
        handler = continuation(handler_call_details)
        if handler is None:  # unknown method: grpc answers UNIMPLEMENTED itself
            return None
        name, attributes = rpc_attributes(handler_call_details.method)
        if attributes["rpc.service"] in self._untraced:
            return handler
        parent = propagate.extract(_text_metadata(handler_call_details.invocation_metadata))
        args = (handler.request_deserializer, handler.response_serializer)
        if handler.unary_unary is not None:
            return grpc.unary_unary_rpc_method_handler(
                self._unary_response(handler.unary_unary, name, attributes, parent), *args)
        if handler.stream_unary is not None:
            return grpc.stream_unary_rpc_method_handler(
                self._unary_response(handler.stream_unary, name, attributes, parent), *args)
        if handler.unary_stream is not None:
            return grpc.unary_stream_rpc_method_handler(
                self._stream_response(handler.unary_stream, name, attributes, parent), *args)
        return grpc.stream_stream_rpc_method_handler(
            self._stream_response(handler.stream_stream, name, attributes, parent), *args)

    def _start(self, name: str, attributes: dict[str, str], parent: Context) -> Span:
        return self._tracer.start_span(name, context=parent, kind=SpanKind.SERVER, attributes=attributes)

    @staticmethod
    def _fail(span: Span, context: grpc.ServicerContext, exc: BaseException) -> None:
        code = context.code()
        if code is None:  # not an abort: grpc answers UNKNOWN for an escaped exception
            span.record_exception(exc)
            finish_rpc_span(span, grpc.StatusCode.UNKNOWN, f"{type(exc).__name__}: {exc}")
        else:
            finish_rpc_span(span, code, _decoded(context.details()))

    @staticmethod
    def _succeed(span: Span, context: grpc.ServicerContext) -> None:
        code = context.code()
        if code is None:  # an RPC that ended under the handler was cancelled or timed out by the client
            code = grpc.StatusCode.OK if context.is_active() else grpc.StatusCode.CANCELLED
        finish_rpc_span(span, code, _decoded(context.details()))

    def _unary_response(self, behavior: Callable[[Any, grpc.ServicerContext], Any], name: str,
                        attributes: dict[str, str], parent: Context) -> Callable[[Any, grpc.ServicerContext], Any]:
        def traced(request: Any, context: grpc.ServicerContext) -> Any:
            span = self._start(name, attributes, parent)
            try:
                with trace.use_span(span, record_exception=False, set_status_on_exception=False):
                    response = behavior(request, context)
            except BaseException as exc:
                self._fail(span, context, exc)
                raise
            else:
                self._succeed(span, context)
                return response
            finally:
                span.end()

        return traced

    def _stream_response(self, behavior: Callable[[Any, grpc.ServicerContext], Iterator[Any]], name: str,
                         attributes: dict[str, str], parent: Context
                         ) -> Callable[[Any, grpc.ServicerContext], Iterator[Any]]:
        def traced(request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
            span = self._start(name, attributes, parent)
            try:
                # The span is current only while the handler runs, never across a yield: grpc may
                # close an abandoned stream from another thread, where a context token cannot be reset.
                with trace.use_span(span, record_exception=False, set_status_on_exception=False):
                    responses = iter(behavior(request, context))
                while True:
                    with trace.use_span(span, record_exception=False, set_status_on_exception=False):
                        try:
                            response = next(responses)
                        except StopIteration:
                            break
                    yield response
            except GeneratorExit:  # the client went away before the end of the stream
                finish_rpc_span(span, grpc.StatusCode.CANCELLED)
                raise
            except BaseException as exc:
                self._fail(span, context, exc)
                raise
            else:
                self._succeed(span, context)
            finally:
                span.end()

        return traced


class _CallDetails(NamedTuple):
    method: str
    timeout: float | None
    metadata: Any
    credentials: grpc.CallCredentials | None
    wait_for_ready: bool | None
    compression: grpc.Compression | None


# grpc ships no type information: its base classes are Any to mypy.
class TracingClientInterceptor(grpc.UnaryUnaryClientInterceptor, grpc.UnaryStreamClientInterceptor):  # type: ignore[misc]
    """A CLIENT span per call (ended when the call completes, also for futures and streams) whose
    context goes out in the request metadata."""

    def __init__(self, tracer_provider: trace.TracerProvider | None = None) -> None:
        self._tracer = trace.get_tracer(INSTRUMENTATION_NAME, tracer_provider=tracer_provider)

    def _start(self, details: grpc.ClientCallDetails) -> tuple[Span, grpc.ClientCallDetails]:
        raw: str | bytes = details.method
        method = raw.decode() if isinstance(raw, bytes) else raw
        name, attributes = rpc_attributes(method)
        span = self._tracer.start_span(name, kind=SpanKind.CLIENT, attributes=attributes)
        carrier: dict[str, str] = {}
        propagate.inject(carrier, context=trace.set_span_in_context(span))
        metadata = [*(details.metadata or ()), *carrier.items()]
        return span, _CallDetails(details.method, details.timeout, metadata,
                                  details.credentials, details.wait_for_ready,
                                  details.compression)

    @staticmethod
    def _end_when_done(span: Span, call: Any) -> Any:
        def done(finished: Any) -> None:
            code = finished.code()
            finish_rpc_span(span, code or grpc.StatusCode.OK, finished.details() or "")
            span.end()

        call.add_done_callback(done)
        return call

    def intercept_unary_unary(self, continuation: Callable[[grpc.ClientCallDetails, Any], Any],
                              client_call_details: grpc.ClientCallDetails, request: Any) -> Any:
        span, details = self._start(client_call_details)
        try:
            call = continuation(details, request)
        except BaseException as exc:
            span.record_exception(exc)
            finish_rpc_span(span, grpc.StatusCode.UNKNOWN, str(exc))
            span.end()
            raise
        return self._end_when_done(span, call)

    def intercept_unary_stream(self, continuation: Callable[[grpc.ClientCallDetails, Any], Any],
                               client_call_details: grpc.ClientCallDetails, request: Any) -> Any:
        return self.intercept_unary_unary(continuation, client_call_details, request)


def server_interceptor(tracer_provider: trace.TracerProvider | None = None, *,
                       untraced_services: Collection[str] = INFRASTRUCTURE_SERVICES) -> TracingServerInterceptor:
    """For `grpc.server(..., interceptors=[server_interceptor()])`; the global provider by default;
    health checks and reflection make no spans unless `untraced_services` says otherwise."""
    return TracingServerInterceptor(tracer_provider, untraced_services=untraced_services)


def client_interceptor(tracer_provider: trace.TracerProvider | None = None) -> TracingClientInterceptor:
    """For `grpc.intercept_channel(channel, client_interceptor())`; the global provider by default."""
    return TracingClientInterceptor(tracer_provider)
