"""Servers on 127.0.0.1 with a free port, with the interceptors `scicustom service` installs and the
default message limit (16 MiB)."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Any

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from scicustom.commands.service import server_interceptors
from scicustom.grpc_server.server import ServiceBinding, start_server

PROBE_SERVICE = "test.v1.Probe"


@contextmanager
def loopback(bindings: Sequence[ServiceBinding], *, max_message_bytes: int = 16 * 1024 * 1024,
             interceptors: Sequence[grpc.ServerInterceptor] | None = None) -> Iterator[grpc.Channel]:
    chain = server_interceptors() if interceptors is None else interceptors
    server, _, port = start_server(bindings, "127.0.0.1", 0, max_message_bytes=max_message_bytes, interceptors=chain)
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    try:
        yield channel
    finally:
        channel.close()
        server.stop(None)


def probe_binding(unary: dict[str, Callable[[bytes, grpc.ServicerContext], bytes]] | None = None,
                  streams: dict[str, Callable[[bytes, grpc.ServicerContext], Iterator[bytes]]] | None = None
                  ) -> ServiceBinding:
    """A service of raw-bytes methods (no serializers), for testing the runtime itself."""
    handlers: dict[str, grpc.RpcMethodHandler] = {
        name: grpc.unary_unary_rpc_method_handler(fn) for name, fn in (unary or {}).items()}
    handlers.update({name: grpc.unary_stream_rpc_method_handler(fn) for name, fn in (streams or {}).items()})
    generic = grpc.method_handlers_generic_handler(PROBE_SERVICE, handlers)
    return ServiceBinding(PROBE_SERVICE, lambda server: server.add_generic_rpc_handlers((generic,)))


def health_status(channel: grpc.Channel, service: str) -> int:
    request = health_pb2.HealthCheckRequest(service=service)
    return int(health_pb2_grpc.HealthStub(channel).Check(request, timeout=5).status)


def reflected_services(channel: grpc.Channel) -> set[str]:
    stub = reflection_pb2_grpc.ServerReflectionStub(channel)
    (response,) = stub.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(list_services="")]),
                                             timeout=5)
    return {s.name for s in response.list_services_response.service}


def rpc_error(call: Callable[[], Any]) -> grpc.RpcError:
    """The error a call ends with (it must fail)."""
    try:
        call()
    except grpc.RpcError as exc:
        return exc
    raise AssertionError("the call succeeded")


def invalid_field(call: Callable[[], Any]) -> str:
    """The `field: problem` message of a call that must end INVALID_ARGUMENT."""
    error = rpc_error(call)
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT, error.details()
    return str(error.details())
