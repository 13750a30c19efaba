"""Rebuild a gRPC method handler around its behaviour, for server interceptors.

A handler has one behaviour of four kinds; for wrapping, only the response side matters: a unary
response (unary-unary, stream-unary) or a response stream (unary-stream, stream-stream).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import grpc

UnaryBehaviour = Callable[[Any, grpc.ServicerContext], Any]
StreamBehaviour = Callable[[Any, grpc.ServicerContext], Iterator[Any]]


def rewrap(handler: grpc.RpcMethodHandler, unary: Callable[[UnaryBehaviour], UnaryBehaviour],
           stream: Callable[[StreamBehaviour], StreamBehaviour],
           request_deserializer: Callable[[bytes], Any] | None = None) -> grpc.RpcMethodHandler:
    """`handler` with its behaviour passed through `unary` or `stream`; serializers unchanged unless a
    `request_deserializer` replaces the handler's."""
    serializers = {"request_deserializer": request_deserializer or handler.request_deserializer,
                   "response_serializer": handler.response_serializer}
    if handler.unary_unary is not None:
        return grpc.unary_unary_rpc_method_handler(unary(handler.unary_unary), **serializers)
    if handler.stream_unary is not None:
        return grpc.stream_unary_rpc_method_handler(unary(handler.stream_unary), **serializers)
    if handler.unary_stream is not None:
        return grpc.unary_stream_rpc_method_handler(stream(handler.unary_stream), **serializers)
    return grpc.stream_stream_rpc_method_handler(stream(handler.stream_stream), **serializers)


def method_of(details: grpc.HandlerCallDetails) -> str:
    """'/package.Service/Method'."""
    return str(details.method)
