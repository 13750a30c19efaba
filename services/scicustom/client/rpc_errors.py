"""A failed gRPC call as the CLI reports it: the field at fault (exit 2) or a one-line precondition."""

from __future__ import annotations

import grpc

from scicustom.core.errors import InvalidInput, PreconditionFailed


def call_error(exc: grpc.RpcError, service: str, address: str) -> Exception:
    code, details = exc.code(), exc.details() or ""
    if code == grpc.StatusCode.INVALID_ARGUMENT:
        field, _, problem = details.partition(": ")
        return InvalidInput(field, problem or details)
    if code == grpc.StatusCode.UNAVAILABLE:
        return PreconditionFailed(f"{service} at {address} is unreachable ({details})")
    return PreconditionFailed(f"{service}: {code.name}: {details}")
