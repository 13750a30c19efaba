"""The auth hook: metadata from a caller's function added to every call, asked for again on each
call (and each retry), so a rotated token is picked up without a new client.

An interceptor rather than `grpc.metadata_call_credentials`: call credentials are sent only over
TLS, and a port-forwarded or in-cluster plaintext channel needs the token too.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import grpc

from scicustom.core.errors import InvalidInput

MetadataHook = Callable[[], Sequence[tuple[str, str]]]


class _CallDetails(NamedTuple):
    method: str
    timeout: float | None
    metadata: Any
    credentials: grpc.CallCredentials | None
    wait_for_ready: bool | None
    compression: grpc.Compression | None


def checked_metadata(pairs: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
    """gRPC metadata keys are lowercase ASCII; a hook's mistake is named here, not as a transport error."""
    out = []
    for key, value in pairs:
        if not key or key != key.lower() or not key.isascii() or key.startswith(":"):
            raise InvalidInput("metadata", f"{key!r} is not a gRPC metadata key (lowercase ASCII)")
        if not isinstance(value, str) and not key.endswith("-bin"):
            raise InvalidInput("metadata", f"{key!r} needs a str value (bytes only for -bin keys)")
        out.append((key, value))
    return out


# grpc ships no type information: its base classes are Any to mypy.
class MetadataInterceptor(grpc.UnaryUnaryClientInterceptor, grpc.UnaryStreamClientInterceptor,  # type: ignore[misc]
                          grpc.StreamUnaryClientInterceptor, grpc.StreamStreamClientInterceptor):  # type: ignore[misc]
    """Adds `hook()`'s pairs to the metadata of every call through the channel."""

    def __init__(self, hook: MetadataHook) -> None:
        self._hook = hook

    def _details(self, details: grpc.ClientCallDetails) -> _CallDetails:
        metadata = [*(details.metadata or ()), *checked_metadata(self._hook())]
        return _CallDetails(details.method, details.timeout, metadata, details.credentials,
                            details.wait_for_ready, details.compression)

    def intercept_unary_unary(self, continuation: Callable[[Any, Any], Any], client_call_details: Any,
                              request: Any) -> Any:
        return continuation(self._details(client_call_details), request)

    def intercept_unary_stream(self, continuation: Callable[[Any, Any], Any], client_call_details: Any,
                               request: Any) -> Any:
        return continuation(self._details(client_call_details), request)

    def intercept_stream_unary(self, continuation: Callable[[Any, Any], Any], client_call_details: Any,
                               request_iterator: Any) -> Any:
        return continuation(self._details(client_call_details), request_iterator)

    def intercept_stream_stream(self, continuation: Callable[[Any, Any], Any], client_call_details: Any,
                                request_iterator: Any) -> Any:
        return continuation(self._details(client_call_details), request_iterator)
