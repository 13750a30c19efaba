"""The errors the client SDK raises, and a failed gRPC call mapped onto them.

Every SDK error is a `ClientError`. A call that ended with a non-OK status is an `RpcCallError`
carrying the status `code`, its `details`, and the service and address it went to; the codes a
caller usually branches on have their own subclass. The hierarchy sits on the platform's domain
errors, so the CLI reports an SDK error like any other: INVALID_ARGUMENT is an `InvalidInput`
naming the field (exit 2), everything else a `PreconditionFailed` with one line.
"""

from __future__ import annotations

import grpc

from scicustom.core.errors import InvalidInput, PreconditionFailed


class ClientError(PreconditionFailed):
    """Any failure the SDK reports."""


class RpcCallError(ClientError):
    """A call that ended with a non-OK gRPC status."""

    def __init__(self, code: grpc.StatusCode, details: str, service: str, address: str) -> None:
        super().__init__(self.describe(code, details, service, address))
        self.code = code
        self.details = details
        self.service = service
        self.address = address

    @staticmethod
    def describe(code: grpc.StatusCode, details: str, service: str, address: str) -> str:
        return f"{service}: {code.name}: {details}"


class InvalidArgumentError(RpcCallError, InvalidInput):
    """INVALID_ARGUMENT: `field` names the request field at fault, `problem` says what is wrong."""

    def __init__(self, code: grpc.StatusCode, details: str, service: str, address: str) -> None:
        field, _, problem = details.partition(": ")
        InvalidInput.__init__(self, field, problem or details)
        self.code, self.details, self.service, self.address = code, details, service, address


class NotFoundError(RpcCallError):
    """NOT_FOUND: an unknown build, paper, ..."""


class FailedPreconditionError(RpcCallError):
    """FAILED_PRECONDITION: e.g. downloading the files of a build that has not succeeded."""


class UnavailableError(RpcCallError):
    """UNAVAILABLE after the retries: the service cannot be reached (or a model server behind it)."""

    @staticmethod
    def describe(code: grpc.StatusCode, details: str, service: str, address: str) -> str:
        return f"{service} at {address} is unreachable ({details})"


class UnauthenticatedError(RpcCallError):
    """UNAUTHENTICATED: no bearer token, or one the service does not know (revoked, rotated out)."""

    @staticmethod
    def describe(code: grpc.StatusCode, details: str, service: str, address: str) -> str:
        return f"{service} at {address} refused the call: {details} (the token: SCICUSTOM_AUTH_TOKEN)"


class DeadlineExceededError(RpcCallError):
    """DEADLINE_EXCEEDED: the call's deadline passed before the service answered."""


class DownloadError(ClientError):
    """Downloaded artifacts that cannot be trusted; nothing was written."""


class UnsafeArtifactName(DownloadError):
    """The service named a file with a path, a parent reference or control characters."""


class ArtifactIntegrityError(DownloadError):
    """A file's bytes do not match the SHA-256 or size the build recorded, or its chunks are out of order."""


class WaitTimeout(ClientError):
    """`wait` ran out of time before the build (or paper) reached a terminal state; `last` is the
    last state seen (None when none arrived)."""

    def __init__(self, message: str, last: object = None) -> None:
        super().__init__(message)
        self.last = last


_BY_CODE: dict[grpc.StatusCode, type[RpcCallError]] = {
    grpc.StatusCode.INVALID_ARGUMENT: InvalidArgumentError,
    grpc.StatusCode.NOT_FOUND: NotFoundError,
    grpc.StatusCode.FAILED_PRECONDITION: FailedPreconditionError,
    grpc.StatusCode.UNAVAILABLE: UnavailableError,
    grpc.StatusCode.DEADLINE_EXCEEDED: DeadlineExceededError,
    grpc.StatusCode.UNAUTHENTICATED: UnauthenticatedError,
}


def call_error(exc: grpc.RpcError, service: str, address: str) -> RpcCallError:
    """The SDK error for a failed call (`exc` is a grpc.Call as well as an RpcError)."""
    code: grpc.StatusCode = exc.code()
    details: str = exc.details() or ""
    return _BY_CODE.get(code, RpcCallError)(code, details, service, address)
