"""Which failures are an infrastructure outage worth waiting out (broker, object store, index down
or overloaded) rather than a fault of the record: the stage consumer retries those within its
outage budget and everything else a few times only.

Recognised by class name along the exception's MRO and its cause chain, so this module needs none
of the client libraries (they are the adapters' business): a name that is not installed never matches.
"""

from __future__ import annotations

_TRANSIENT_CLASSES = frozenset({
    "builtins.ConnectionError", "builtins.TimeoutError",          # refused/reset sockets, timeouts
    "urllib3.exceptions.HTTPError",                               # S3 client: pool/connection/protocol errors
    "minio.error.ServerError",                                    # S3 answered 5xx
    "kafka.errors.KafkaConnectionError", "kafka.errors.KafkaTimeoutError",
    "kafka.errors.NodeNotReadyError", "kafka.errors.RequestTimedOutError", "kafka.errors.LeaderNotAvailableError",
    "kafka.errors.NotLeaderForPartitionError", "kafka.errors.BrokerNotAvailableError",
    "elastic_transport.ConnectionError", "elastic_transport.ConnectionTimeout",
    "elastic_transport.TransportError",  # the index unreachable (its ApiError, an answer, is not one)
})
# S3 error codes of an overloaded or restarting server (minio.error.S3Error.code).
_TRANSIENT_S3_CODES = frozenset({"InternalError", "ServiceUnavailable", "SlowDown", "RequestTimeout"})
_TRANSIENT_HTTP_STATUS = frozenset({429, 500, 502, 503, 504})


def is_transient(exc: BaseException) -> bool:
    """True for an outage: the exception, or one it was raised from, is a connection-level failure
    or a 5xx/429 answer of the store or the index."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if _transient_itself(current):
            return True
        current = current.__cause__ or current.__context__
    return False


def _transient_itself(exc: BaseException) -> bool:
    names = {f"{cls.__module__}.{cls.__qualname__}" for cls in type(exc).__mro__}
    if names & _TRANSIENT_CLASSES:
        return True
    if "minio.error.S3Error" in names and getattr(exc, "code", "") in _TRANSIENT_S3_CODES:
        return True
    status = getattr(exc, "status_code", None) or getattr(exc, "status", None)
    return "elastic_transport.ApiError" in names and status in _TRANSIENT_HTTP_STATUS
