"""Domain errors as gRPC status codes, and no work for a caller whose deadline has passed.

InvalidInput -> INVALID_ARGUMENT "field: problem", NotFound -> NOT_FOUND, PreconditionFailed ->
FAILED_PRECONDITION, QuotaExceeded -> RESOURCE_EXHAUSTED; anything else -> INTERNAL with a generic
message (the traceback goes to the log, not to the caller). A status the servicer set itself
(`context.abort`) is kept. Bytes that do not decode as the method's request message are
INVALID_ARGUMENT "request: ..." (grpc itself would answer INTERNAL "Exception deserializing
request!" before any handler ran).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, NoReturn

import grpc

from scicustom.core.errors import InvalidInput, NotFound, PreconditionFailed, QuotaExceeded
from scicustom.grpc_server.handler_wrapping import StreamBehaviour, UnaryBehaviour, method_of, rewrap

log = logging.getLogger(__name__)

DOMAIN_CODES: tuple[tuple[type[Exception], grpc.StatusCode], ...] = (
    (InvalidInput, grpc.StatusCode.INVALID_ARGUMENT),
    (NotFound, grpc.StatusCode.NOT_FOUND),
    (PreconditionFailed, grpc.StatusCode.FAILED_PRECONDITION),
    (QuotaExceeded, grpc.StatusCode.RESOURCE_EXHAUSTED),
)
INTERNAL_MESSAGE = "internal error; the server log has the details"


def check_deadline(context: grpc.ServicerContext) -> None:
    """Abort with DEADLINE_EXCEEDED once the caller's deadline has passed: its answer would be dropped.

    Servicers call this between the steps of long work; the interceptor calls it before a handler.
    """
    remaining = context.time_remaining()
    if remaining is not None and remaining <= 0:
        context.abort(grpc.StatusCode.DEADLINE_EXCEEDED, "the deadline passed before the work was done")


def status_for(exc: Exception) -> tuple[grpc.StatusCode, str]:
    for kind, code in DOMAIN_CODES:
        if isinstance(exc, kind):
            return code, str(exc)
    return grpc.StatusCode.INTERNAL, INTERNAL_MESSAGE


@dataclass(frozen=True)
class UndecodableRequest:
    """What the tolerant deserializer hands on in place of a message it could not decode."""

    problem: str


def tolerant(deserializer: Callable[[bytes], Any] | None) -> Callable[[bytes], Any] | None:
    if deserializer is None:  # raw-bytes handlers: nothing to decode
        return None

    def decode(data: bytes) -> Any:
        try:
            return deserializer(data)
        except Exception as exc:  # protobuf raises DecodeError; any codec's failure is the caller's bytes
            return UndecodableRequest(f"is not a valid request message for this method ({type(exc).__name__})")
    return decode


def decoded(request: Any) -> Any:
    if isinstance(request, UndecodableRequest):
        raise InvalidInput("request", request.problem)
    return request


def decoded_stream(requests: Iterable[Any]) -> Iterator[Any]:
    for request in requests:
        yield decoded(request)


def _abort_for(exc: Exception, context: grpc.ServicerContext, method: str) -> NoReturn:
    if context.code() not in (None, grpc.StatusCode.OK):  # the servicer chose its status (abort)
        raise exc
    code, message = status_for(exc)
    if code is grpc.StatusCode.INTERNAL:
        log.error("%s failed", method, exc_info=exc)
    context.abort(code, message)
    raise AssertionError("context.abort returned")  # grpc's abort always raises


class StatusMappingInterceptor(grpc.ServerInterceptor):
    def intercept_service(self, continuation: Callable[[grpc.HandlerCallDetails], grpc.RpcMethodHandler | None],
                          handler_call_details: grpc.HandlerCallDetails) -> grpc.RpcMethodHandler | None:
        handler = continuation(handler_call_details)
        if handler is None:  # unknown method: grpc answers UNIMPLEMENTED itself
            return None
        method = method_of(handler_call_details)
        # A client stream is checked message by message as the servicer reads it.
        checked = decoded_stream if handler.request_streaming else decoded

        def unary(behaviour: UnaryBehaviour) -> UnaryBehaviour:
            def run(request: Any, context: grpc.ServicerContext) -> Any:
                check_deadline(context)
                try:
                    return behaviour(checked(request), context)
                except Exception as exc:
                    _abort_for(exc, context, method)
            return run

        def stream(behaviour: StreamBehaviour) -> StreamBehaviour:
            def run(request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
                check_deadline(context)
                try:
                    yield from behaviour(checked(request), context)
                except Exception as exc:
                    _abort_for(exc, context, method)
            return run

        return rewrap(handler, unary, stream, tolerant(handler.request_deserializer))
