"""What every service client shares: the channel (TLS or plaintext, message limits, the auth hook,
tracing), a deadline per call, retries on UNAVAILABLE, and failed calls mapped to SDK errors."""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from types import TracebackType
from typing import Any, Self, TypeVar

import grpc

from scicustom.client.call_metadata import MetadataHook, MetadataInterceptor
from scicustom.client.retry_policy import RetryPolicy, retryable, with_retries
from scicustom.client.rpc_errors import call_error
from scicustom.core.errors import InvalidInput

T = TypeVar("T")
DEFAULT_DEADLINE_S = 30.0
DEFAULT_MAX_MESSAGE_BYTES = 16 * 1024 * 1024  # the services' default limit


@dataclass(frozen=True)
class ClientOptions:
    """How a client talks to its service.

    deadline_s: each unary call's deadline unless the call names its own `timeout_s`.
    retry: the backoff for idempotent calls that end UNAVAILABLE.
    metadata: the auth hook, e.g. `lambda: [("authorization", f"Bearer {token()}")]`, called for
      every call (and every retry), so rotated tokens are picked up.
    tls: use TLS with the system's roots; root_certificates (PEM bytes) implies TLS with these roots.
    certificate_chain, private_key: this client's certificate and key (PEM), for services that
      require mutual TLS; server_name: the name to expect in the server's certificate when the
      address differs (a port-forward to 127.0.0.1).
    max_message_bytes: the largest message sent or received (the services' limit).
    With no options at all, a client reads them from SCICUSTOM_AUTH_TOKEN and SCICUSTOM_TLS_*
    (client/environment_options.py).
    """

    deadline_s: float = DEFAULT_DEADLINE_S
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    metadata: MetadataHook | None = None
    tls: bool = False
    root_certificates: bytes | None = None
    certificate_chain: bytes | None = None
    private_key: bytes | None = None
    server_name: str | None = None
    max_message_bytes: int = DEFAULT_MAX_MESSAGE_BYTES

    def __post_init__(self) -> None:
        if self.deadline_s <= 0:
            raise InvalidInput("deadline_s", "must be > 0")
        if self.max_message_bytes < 1:
            raise InvalidInput("max_message_bytes", "must be >= 1")
        if (self.certificate_chain is None) != (self.private_key is None):
            raise InvalidInput("certificate_chain", "goes with private_key: give both or neither")

    @property
    def secure(self) -> bool:
        return self.tls or self.root_certificates is not None or self.certificate_chain is not None


def open_channel(address: str, options: ClientOptions) -> grpc.Channel:
    """A channel with the limits, the auth hook and (when OTEL_* configures it) a CLIENT span per call."""
    from scicustom.telemetry.grpc_tracing import client_interceptor

    if not address:
        raise InvalidInput("address", "is empty; give the service's host:port")
    limits = [("grpc.max_receive_message_length", options.max_message_bytes),
              ("grpc.max_send_message_length", options.max_message_bytes)]
    if options.secure:
        credentials = grpc.ssl_channel_credentials(root_certificates=options.root_certificates,
                                                   private_key=options.private_key,
                                                   certificate_chain=options.certificate_chain)
        names = [("grpc.ssl_target_name_override", options.server_name)] if options.server_name else []
        channel = grpc.secure_channel(address, credentials, options=limits + names)
    else:
        channel = grpc.insecure_channel(address, options=limits)
    interceptors: list[Any] = [client_interceptor()]
    if options.metadata is not None:
        interceptors.append(MetadataInterceptor(options.metadata))
    return grpc.intercept_channel(channel, *interceptors)


class ServiceClient:
    """A client of one gRPC service; a context manager that closes its channel."""

    SERVICE = ""  # the service's short name in errors, e.g. "BuildService"

    def __init__(self, address: str, options: ClientOptions | None = None, *,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        self.address = address
        if options is None:
            from scicustom.client.environment_options import options_from_environment

            options = options_from_environment()
        self.options = options
        self._channel = open_channel(address, self.options)
        self._sleep = sleep  # tests replace the backoff waits

    @property
    def channel(self) -> grpc.Channel:
        return self._channel

    def close(self) -> None:
        self._channel.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, kind: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()

    def _deadline(self, timeout_s: float | None) -> float:
        return self.options.deadline_s if timeout_s is None else timeout_s

    def _unary(self, method: Callable[..., T], request: Any, *, idempotent: bool,
               timeout_s: float | None = None) -> T:
        """One unary (or client-streaming, when `request` is a factory of iterators) call."""
        deadline = self._deadline(timeout_s)

        def attempt() -> T:
            return method(request() if callable(request) else request, timeout=deadline)

        try:
            return with_retries(attempt, self.options.retry, idempotent=idempotent, sleep=self._sleep)
        except grpc.RpcError as exc:
            raise call_error(exc, self.SERVICE, self.address) from None

    def _stream(self, open_stream: Callable[[], Iterable[T]], *, resumable: bool,
                progress: Callable[[T], bool] = lambda message: True) -> Iterator[T]:
        """The messages of a server stream. When `resumable`, an UNAVAILABLE break reopens the stream
        with `open_stream()` again (it must ask for what is still missing); the retry budget is spent
        by breaks with no `progress` message in between, so a stream that keeps breaking ends."""
        waits = self.options.retry.backoffs() if resumable else iter(())
        while True:
            try:
                for message in open_stream():
                    yield message
                    if resumable and progress(message):
                        waits = self.options.retry.backoffs()
                return
            except grpc.RpcError as exc:
                wait = next(waits, None) if retryable(exc) else None
                if wait is None:
                    raise call_error(exc, self.SERVICE, self.address) from None
                self._sleep(wait)
