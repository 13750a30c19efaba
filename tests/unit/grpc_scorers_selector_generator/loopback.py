"""A loopback gRPC server for one service binding, with the runtime's domain-error interceptor."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from typing import Any

import grpc

from scicustom.grpc_server.server import ServiceBinding
from scicustom.grpc_server.status_mapping import StatusMappingInterceptor


@contextmanager
def loopback(binding: ServiceBinding) -> Iterator[grpc.Channel]:
    server = grpc.server(ThreadPoolExecutor(max_workers=4), interceptors=[StatusMappingInterceptor()])
    binding.add_to_server(server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    try:
        yield channel
    finally:
        channel.close()
        server.stop(None)


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
