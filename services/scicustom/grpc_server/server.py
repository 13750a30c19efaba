"""Build, start and stop a gRPC server for a set of services.

Every server answers grpc health checking (overall "" and each service SERVING until shutdown) and
reflection, and refuses messages larger than `max_message_bytes` both ways (RESOURCE_EXHAUSTED).
On SIGTERM/SIGINT, `serve` reports NOT_SERVING first (probes stop routing new calls to it), then
gives the calls in flight `grace_s` seconds to finish. With TLS credentials the port speaks TLS
(grpc_server/tls.py); a `health_port` then answers health checks alone in plaintext, for probes.
The thread pool, the bound on waiting calls and keepalive come from a ServerCapacity (capacity.py),
the same one the ConcurrencyLimitInterceptor enforces, so streams cannot take health's threads.
"""

from __future__ import annotations

import faulthandler
import logging
import signal
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from types import FrameType

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_health.v1.health import HealthServicer
from grpc_reflection.v1alpha import reflection

from scicustom.core.errors import InvalidInput, PreconditionFailed
from scicustom.grpc_server.capacity import ServerCapacity, default_capacity

log = logging.getLogger(__name__)

HEALTH_SERVICE = health_pb2.DESCRIPTOR.services_by_name["Health"].full_name


@dataclass(frozen=True)
class ServiceBinding:
    name: str                                     # full service name, e.g. "scicustom.tagger.v1.TaggerService"
    add_to_server: Callable[[grpc.Server], None]  # registers the servicer (the generated add_*_to_server)


def build_server(bindings: Sequence[ServiceBinding], *, max_message_bytes: int,
                 interceptors: Sequence[grpc.ServerInterceptor] = (),
                 capacity: ServerCapacity | None = None) -> tuple[grpc.Server, HealthServicer]:
    """A server (not bound, not started) with the bindings, health and reflection registered.
    `capacity` (default: the settings' defaults) sizes its thread pool, queue and keepalive; the
    ConcurrencyLimitInterceptor among `interceptors` must be built from the same one."""
    capacity = capacity or default_capacity()
    names = [b.name for b in bindings]
    if len(set(names)) != len(names) or not all(names):
        raise InvalidInput("bindings", f"service names must be distinct and non-empty: {names}")
    if max_message_bytes < 1:
        raise InvalidInput("grpc_max_message_bytes", "must be >= 1")
    server = grpc.server(
        ThreadPoolExecutor(max_workers=capacity.max_workers, thread_name_prefix="grpc"),
        interceptors=list(interceptors), maximum_concurrent_rpcs=capacity.maximum_concurrent_rpcs,
        options=[*capacity.options(),
                 ("grpc.max_receive_message_length", max_message_bytes),
                 ("grpc.max_send_message_length", max_message_bytes),
                 # Two processes must not share a port silently: a second bind fails instead.
                 ("grpc.so_reuseport", 0)])
    health = HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(health, server)
    for binding in bindings:
        binding.add_to_server(server)
    for name in ["", *names]:
        health.set(name, health_pb2.HealthCheckResponse.SERVING)
    reflection.enable_server_reflection([*names, HEALTH_SERVICE, reflection.SERVICE_NAME], server)
    return server, health


def address(host: str, port: int) -> str:
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def start_server(bindings: Sequence[ServiceBinding], host: str, port: int, *, max_message_bytes: int,
                 interceptors: Sequence[grpc.ServerInterceptor] = (),
                 capacity: ServerCapacity | None = None,
                 credentials: grpc.ServerCredentials | None = None) -> tuple[grpc.Server, HealthServicer, int]:
    """Build, bind (port 0 picks a free one) and start a server; returns it, its health and the port.
    `credentials`: TLS (grpc_server/tls.py); None listens in plaintext."""
    if not 0 <= port < 65536:
        raise InvalidInput("port", f"{port} is not a port")
    server, health = build_server(bindings, max_message_bytes=max_message_bytes, interceptors=interceptors,
                                  capacity=capacity)
    try:
        bound = (server.add_insecure_port(address(host, port)) if credentials is None
                 else server.add_secure_port(address(host, port), credentials))
    except RuntimeError as exc:  # grpc raises on a failed bind (older versions returned 0)
        raise PreconditionFailed(f"cannot listen on {address(host, port)}: {exc}") from None
    if bound == 0:
        raise PreconditionFailed(f"cannot listen on {address(host, port)}")
    server.start()
    return server, health, bound


def start_health_server(health: HealthServicer, host: str, port: int) -> tuple[grpc.Server, int]:
    """Health checking alone, in plaintext, answering from `health` (the TLS server's): what kubelet
    gRPC probes reach, since they cannot speak TLS. It serves nothing else, so it needs no token."""
    server = grpc.server(ThreadPoolExecutor(max_workers=2, thread_name_prefix="grpc-health"),
                         options=[("grpc.so_reuseport", 0)])
    health_pb2_grpc.add_HealthServicer_to_server(health, server)
    try:
        bound = server.add_insecure_port(address(host, port))
    except RuntimeError as exc:
        raise PreconditionFailed(f"cannot listen on {address(host, port)} (health): {exc}") from None
    server.start()
    return server, bound


def shut_down(server: grpc.Server, health: HealthServicer, grace_s: float) -> None:
    """NOT_SERVING for every service, then stop: new calls are refused, calls in flight get `grace_s`."""
    health.enter_graceful_shutdown()
    server.stop(grace_s).wait()


def dump_stacks_on_sigusr1() -> None:
    """`kill -USR1 <pid>` writes every thread's stack to stderr (the pod log): the first thing to
    look at when a server or worker stops making progress without failing."""
    faulthandler.register(signal.SIGUSR1, all_threads=True)


def serve(bindings: Sequence[ServiceBinding], host: str, port: int, *, grace_s: float, max_message_bytes: int,
          interceptors: Sequence[grpc.ServerInterceptor] = (), capacity: ServerCapacity | None = None,
          credentials: grpc.ServerCredentials | None = None, health_port: int | None = None) -> None:
    """Run until SIGTERM or SIGINT, then shut down gracefully and return. Call from the main thread."""
    stop = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        log.info("signal %d: shutting down (grace %.1f s)", signum, grace_s)
        stop.set()

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGTERM, signal.SIGINT)}
    dump_stacks_on_sigusr1()
    try:
        server, health, bound = start_server(bindings, host, port, max_message_bytes=max_message_bytes,
                                             interceptors=interceptors, capacity=capacity, credentials=credentials)
        log.info("serving %s on %s%s", ", ".join(b.name for b in bindings), address(host, bound),
                 "" if credentials is None else " (TLS)")
        health_server = None
        if health_port is not None:
            health_server, health_bound = start_health_server(health, host, health_port)
            log.info("health checks on %s (plaintext)", address(host, health_bound))
        while not stop.wait(0.5):
            pass
        shut_down(server, health, grace_s)
        if health_server is not None:
            health_server.stop(None)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
