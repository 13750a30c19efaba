"""Bearer-token authentication of every RPC, and the caller's tenant for the handler.

Every call but grpc health checking and reflection must carry `authorization: Bearer <token>`;
a missing, malformed, unknown or expired token ends UNAUTHENTICATED before the handler runs, and a
token whose role does not allow the method (authorisation.py) PERMISSION_DENIED. The token's
tenant (auth_tokens.py) is set in a context variable while the handler runs: `current_tenant()`
is what a servicer scopes builds, artifacts and papers by (app/tenancy.py).

The tokens file is read again when it changes (mounted_files.py), so rotating the Secret takes
effect within seconds and without a restart. A file that cannot be read or parsed keeps the last
good table and logs an error: a broken rotation never opens the platform, nor locks it.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextvars import ContextVar
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import grpc

from scicustom.app.tenancy import LOCAL_TENANT
from scicustom.config import Settings
from scicustom.core.errors import InvalidInput, PreconditionFailed
from scicustom.grpc_server.auth_tokens import TokenRecord, TokenTable, read_tokens, utc_text
from scicustom.grpc_server.authorisation import refusal
from scicustom.grpc_server.handler_wrapping import StreamBehaviour, UnaryBehaviour, method_of, rewrap
from scicustom.grpc_server.mounted_files import WatchedFiles

log = logging.getLogger(__name__)

# Open without a token: probes and tools must reach them, and they reveal no tenant's data.
OPEN_SERVICES = frozenset({"grpc.health.v1.Health", "grpc.reflection.v1alpha.ServerReflection",
                           "grpc.reflection.v1.ServerReflection"})
RELOAD_INTERVAL_S = 2.0
_SCHEME = "bearer"

# The tenant of the call being handled; the implicit tenant where no authentication runs.
_tenant: ContextVar[str] = ContextVar("scicustom_tenant", default=LOCAL_TENANT)


def current_tenant() -> str:
    return _tenant.get()


def bearer_token(metadata: Sequence[tuple[str, Any]] | None) -> str | None:
    """The token of the one `authorization: Bearer <token>` entry; None when absent or malformed."""
    values = [value for key, value in (metadata or ()) if key == "authorization"]
    if len(values) != 1 or not isinstance(values[0], str):
        return None
    scheme, _, token = values[0].strip().partition(" ")
    token = token.strip()
    if scheme.lower() != _SCHEME or not token or any(c.isspace() for c in token):
        return None
    return token


class TokenFile:
    """The tokens file, read again when it changes; the last good table survives a bad file."""

    def __init__(self, path: Path, min_interval_s: float = RELOAD_INTERVAL_S,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.path = path
        self._watch = WatchedFiles([path], min_interval_s, clock)
        self._lock = threading.Lock()
        try:
            self._table = read_tokens(path)
        except InvalidInput as exc:  # at start-up there is no good table to keep: refuse to serve
            raise PreconditionFailed(f"authentication: {exc}") from None
        if not self._table.records_by_digest:
            log.warning("authentication: %s lists no token; every call will be refused", path)

    @property
    def table(self) -> TokenTable:
        if self._watch.changed():
            self._reload()
        return self._table

    def _reload(self) -> None:
        with self._lock:
            try:
                table = read_tokens(self.path)
            except InvalidInput as exc:
                log.error("authentication: %s; keeping the %d tokens read before", exc,
                          len(self._table.records_by_digest))
                return
            self._table = table
            log.info("authentication: %s reloaded: %d tokens of %d tenants", self.path,
                     len(table.records_by_digest), len(table.tenants))

    def tenant_of(self, token: str) -> str | None:
        return self.table.tenant_of(token)

    def record_of(self, token: str) -> TokenRecord | None:
        return self.table.record_of(token)


def _service_of(method: str) -> str:
    return method.lstrip("/").split("/", 1)[0]


class AuthenticationInterceptor(grpc.ServerInterceptor):
    """Place it inside the tracing, metrics and request-log interceptors, so refused calls are
    traced, counted and logged with their UNAUTHENTICATED or PERMISSION_DENIED code like any other.
    `now` is the wall clock token expiries are compared with."""

    def __init__(self, tokens: TokenFile, now: Callable[[], datetime] = lambda: datetime.now(UTC)) -> None:
        self.tokens = tokens
        self.now = now

    def intercept_service(self, continuation: Callable[[grpc.HandlerCallDetails], grpc.RpcMethodHandler | None],
                          handler_call_details: grpc.HandlerCallDetails) -> grpc.RpcMethodHandler | None:
        method = method_of(handler_call_details)
        if _service_of(method) in OPEN_SERVICES:
            return continuation(handler_call_details)
        handler = continuation(handler_call_details)
        if handler is None:
            return None
        token = bearer_token(handler_call_details.invocation_metadata)
        record = None if token is None else self.tokens.record_of(token)
        refused = self._refusal(token, record, method)
        if refused is not None:
            code, reason = refused
            return rewrap(handler, lambda _: _refusing(code, reason), lambda _: _refusing_stream(code, reason))
        assert record is not None
        tenant = record.tenant
        return rewrap(handler, lambda behaviour: _as_tenant(tenant, behaviour),
                      lambda behaviour: _as_tenant_stream(tenant, behaviour))

    def _refusal(self, token: str | None, record: TokenRecord | None,
                 method: str) -> tuple[grpc.StatusCode, str] | None:
        if token is None:
            return (grpc.StatusCode.UNAUTHENTICATED,
                    "missing or malformed credentials: send the metadata `authorization: Bearer <token>`")
        if record is None:
            return grpc.StatusCode.UNAUTHENTICATED, "unknown bearer token"
        if record.expires_at is not None and record.expired(self.now()):
            return grpc.StatusCode.UNAUTHENTICATED, f"token expired at {utc_text(record.expires_at)}"
        denied = refusal(method, record.role)
        return None if denied is None else (grpc.StatusCode.PERMISSION_DENIED, denied)


def _refusing(code: grpc.StatusCode, reason: str) -> UnaryBehaviour:
    def run(request: Any, context: grpc.ServicerContext) -> Any:
        context.abort(code, reason)
    return run


def _refusing_stream(code: grpc.StatusCode, reason: str) -> StreamBehaviour:
    def run(request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
        context.abort(code, reason)
        yield from ()
    return run


def _as_tenant(tenant: str, behaviour: UnaryBehaviour) -> UnaryBehaviour:
    def run(request: Any, context: grpc.ServicerContext) -> Any:
        token = _tenant.set(tenant)
        try:
            return behaviour(request, context)
        finally:
            _tenant.reset(token)
    return run


def _as_tenant_stream(tenant: str, behaviour: StreamBehaviour) -> StreamBehaviour:
    def run(request: Any, context: grpc.ServicerContext) -> Iterator[Any]:
        # Set around each step, not across the yields: a stream's steps may run in other contexts.
        responses = iter(_call_as(tenant, lambda: behaviour(request, context)))
        try:
            while True:
                try:
                    item = _call_as(tenant, lambda: next(responses))
                except StopIteration:
                    return
                yield item
        finally:  # a caller gone mid-stream: the handler's own clean-up runs now, as the tenant
            close = getattr(responses, "close", None)
            if close is not None:
                _call_as(tenant, close)
    return run


def _call_as(tenant: str, step: Callable[[], Any]) -> Any:
    token = _tenant.set(tenant)
    try:
        return step()
    finally:
        _tenant.reset(token)


def authentication_for(settings: Settings) -> AuthenticationInterceptor | None:
    """The interceptor a service installs, or None where calls need no token.

    Tokens file set: every RPC needs a token of it. None set: the local profile serves one implicit
    tenant; the cluster profile refuses to start unless SCICUSTOM_AUTH_DISABLED=true says that an
    open, single-tenant platform is meant (a forgotten Secret must not open a shared one)."""
    if settings.auth_tokens_file is not None:
        if settings.auth_disabled:
            raise PreconditionFailed("SCICUSTOM_AUTH_TOKENS_FILE and SCICUSTOM_AUTH_DISABLED=true contradict "
                                     "each other; unset one")
        return AuthenticationInterceptor(TokenFile(settings.auth_tokens_file))
    if settings.profile == "cluster" and not settings.auth_disabled:
        raise PreconditionFailed("the cluster profile authenticates every RPC: set SCICUSTOM_AUTH_TOKENS_FILE "
                                 "(a file of token digests, see SECURITY.md), or SCICUSTOM_AUTH_DISABLED=true "
                                 "for an open single-tenant platform")
    if settings.auth_disabled:
        log.warning("authentication is off (SCICUSTOM_AUTH_DISABLED=true): every caller is tenant %r",
                    LOCAL_TENANT)
    return None
