"""BuildService (the real servicer, builds run in-process by the stage workers) or a fake service on
a loopback port, for the client SDK; a server interceptor records each call's metadata."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

import grpc
import pytest

from scicustom.adapters.filesystem_store import FilesystemObjectStore
from scicustom.adapters.memory_bus import InMemoryEventBus
from scicustom.app.build.build_records import BuildRecords, list_build_ids
from scicustom.builds.servicer import SERVICE_NAME, BuildServicer
from scicustom.builds.v1 import builds_pb2_grpc as pb_grpc
from scicustom.client import BuildsClient, ClientOptions, RetryPolicy
from scicustom.commands.service import server_interceptors
from scicustom.grpc_server.server import ServiceBinding, start_server
from tests.unit.workers.conftest import StubContext, run_workers

BUILD_OPTIONS = {"k1": 2, "k2": 20, "proxy_samples": 10, "seed": 1, "relevance_quantile": 0.75}
FAST_RETRY = RetryPolicy(max_attempts=3, initial_backoff_s=0.01, max_backoff_s=0.05)


@dataclass
class MetadataLog(grpc.ServerInterceptor):
    """(method, metadata) of every call the server received."""

    calls: list[tuple[str, dict[str, str]]] = field(default_factory=list)

    def intercept_service(self, continuation, handler_call_details):
        self.calls.append((handler_call_details.method, dict(handler_call_details.invocation_metadata or ())))
        return continuation(handler_call_details)


@contextmanager
def serving(bindings: Sequence[ServiceBinding], log: MetadataLog | None = None) -> Iterator[str]:
    """The address of a server with the interceptors `scicustom service` installs (plus `log`)."""
    chain = ([log] if log else []) + server_interceptors()
    server, _, port = start_server(bindings, "127.0.0.1", 0, max_message_bytes=16 * 1024 * 1024, interceptors=chain)
    try:
        yield f"127.0.0.1:{port}"
    finally:
        server.stop(None)


def build_binding(servicer: pb_grpc.BuildServiceServicer) -> ServiceBinding:
    return ServiceBinding(SERVICE_NAME, lambda server: pb_grpc.add_BuildServiceServicer_to_server(servicer, server))


@dataclass
class Served:
    ctx: StubContext
    address: str
    log: MetadataLog

    def client(self, **options) -> BuildsClient:
        return BuildsClient(self.address, ClientOptions(retry=FAST_RETRY, **options))


@pytest.fixture
def ctx(tmp_path: Path) -> StubContext:
    return StubContext(FilesystemObjectStore(tmp_path / "store"), InMemoryEventBus())


@pytest.fixture
def served(ctx: StubContext) -> Iterator[Served]:
    """The real BuildServicer; 700-byte chunks, so every file of a build comes in several."""
    log = MetadataLog()
    with serving([build_binding(BuildServicer(ctx, watch_poll_s=0.05, chunk_bytes=700))], log) as address:
        yield Served(ctx, address, log)


def builds_ended(ctx: StubContext, count: int) -> Callable[[object], bool]:
    """At least `count` builds exist, and every one has ended."""
    def ended(workers: object) -> bool:
        ids = list_build_ids(ctx.store)
        return len(ids) >= count and all(BuildRecords(ctx.store, b).state().terminal for b in ids)
    return ended


@contextmanager
def workers_in_background(ctx: StubContext, builds: int = 1) -> Iterator[None]:
    """The stage workers run in another thread until `builds` builds have ended (as in a cluster,
    where the caller only talks to BuildService)."""
    errors: list[BaseException] = []

    def run() -> None:
        try:
            run_workers(ctx, builds_ended(ctx, builds))
        except BaseException as exc:  # re-raised in the test's thread below
            errors.append(exc)

    thread = threading.Thread(target=run)
    thread.start()
    try:
        yield
    finally:
        thread.join()
    if errors:
        raise errors[0]
