"""How much load a gRPC server takes, and the grpc options that hold it there.

A sync grpc server runs every call on a thread of its pool, a server stream (WatchBuild,
DownloadArtifacts) for as long as it is open. Left alone, a handful of streams take every thread
and health checks queue behind them until Kubernetes kills the pod. So the pool is split:

    max_workers = (calls but health checks: max_in_flight) + health_reserve
    max_in_flight >= max_streams + 1     (a unary call always finds a thread, however many streams)

The limiter (concurrency_limits.py) refuses calls beyond those counts with RESOURCE_EXHAUSTED, so a
health check always finds one of the reserved threads. grpc's own `maximum_concurrent_rpcs` bounds
the calls waiting for a thread (refused beyond it), so no queue grows without bound. Keepalive pings
end the calls of peers that vanished without closing their connection (their slots come back);
`max_connection_age` makes long-lived clients reconnect, so new replicas get a share of them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from scicustom.config import Settings
from scicustom.core.errors import InvalidInput


@dataclass(frozen=True)
class Keepalive:
    time_s: float                      # ping a connection quiet this long
    timeout_s: float                   # ... and close it when the ping is not answered in this time
    min_client_ping_interval_s: float  # clients pinging more often get GOAWAY (too_many_pings)
    max_connection_idle_s: float       # close a connection without calls after this long
    max_connection_age_s: float        # then GOAWAY: the client reconnects, maybe to another replica
    max_connection_age_grace_s: float  # calls in flight get this long to finish after that GOAWAY

    def options(self) -> list[tuple[str, int]]:
        def ms(seconds: float) -> int:
            return int(seconds * 1000)
        return [("grpc.keepalive_time_ms", ms(self.time_s)),
                ("grpc.keepalive_timeout_ms", ms(self.timeout_s)),
                ("grpc.keepalive_permit_without_calls", 1),
                # Keep pinging a stream that sends nothing for minutes (a build in a long stage):
                # grpc's default stops after two pings without data.
                ("grpc.http2.max_pings_without_data", 0),
                ("grpc.http2.min_ping_interval_without_data_ms", ms(self.min_client_ping_interval_s)),
                ("grpc.max_connection_idle_ms", ms(self.max_connection_idle_s)),
                ("grpc.max_connection_age_ms", ms(self.max_connection_age_s)),
                ("grpc.max_connection_age_grace_ms", ms(self.max_connection_age_grace_s))]


@dataclass(frozen=True)
class ServerCapacity:
    max_workers: int
    health_reserve: int
    max_streams: int
    stream_limits: Mapping[str, int]  # "package.Service/Method" -> calls at once
    default_stream_limit: int
    max_queued: int
    keepalive: Keepalive

    def __post_init__(self) -> None:
        if self.health_reserve < 1 or self.max_workers <= self.health_reserve:
            raise InvalidInput("grpc_health_reserve_threads",
                               f"must be >= 1 and below grpc_max_workers ({self.max_workers})")
        if not 1 <= self.max_streams < self.max_in_flight:
            raise InvalidInput("grpc_max_streams", f"must be >= 1 and below grpc_max_workers - "
                               f"grpc_health_reserve_threads ({self.max_in_flight}): unary calls need a thread")
        for method, limit in self.stream_limits.items():
            if method.startswith("/") or method.count("/") != 1 or limit < 0:
                raise InvalidInput("grpc_stream_limits", f"{method!r}: {limit} is not "
                                   "'package.Service/Method' with a limit >= 0")
        if self.default_stream_limit < 0 or self.max_queued < 0:
            raise InvalidInput("grpc_default_stream_limit", "limits must be >= 0")

    @property
    def max_in_flight(self) -> int:
        """Calls (other than health checks) running at once; the rest of the pool is health's."""
        return self.max_workers - self.health_reserve

    def stream_limit(self, method: str) -> int:
        """`method`: grpc's "/package.Service/Method"."""
        return min(self.stream_limits.get(method.lstrip("/"), self.default_stream_limit), self.max_streams)

    @property
    def maximum_concurrent_rpcs(self) -> int:
        """Running and waiting calls together; grpc refuses the next one (RESOURCE_EXHAUSTED)."""
        return self.max_workers + self.max_queued

    def options(self) -> list[tuple[str, int]]:
        # Not grpc.max_concurrent_streams: a burst beyond it is reset (REFUSED_STREAM, UNAVAILABLE to
        # the caller) instead of reaching the limiter, whose refusal names the limit.
        return self.keepalive.options()


def server_capacity(settings: Settings) -> ServerCapacity:
    return ServerCapacity(
        max_workers=settings.grpc_max_workers, health_reserve=settings.grpc_health_reserve_threads,
        max_streams=settings.grpc_max_streams,
        stream_limits=dict(settings.grpc_stream_limits),
        default_stream_limit=settings.grpc_default_stream_limit, max_queued=settings.grpc_max_queued_calls,
        keepalive=Keepalive(settings.grpc_keepalive_time_s, settings.grpc_keepalive_timeout_s,
                            settings.grpc_min_client_ping_interval_s, settings.grpc_max_connection_idle_s,
                            settings.grpc_max_connection_age_s, settings.grpc_max_connection_age_grace_s))


def default_capacity() -> ServerCapacity:
    """The settings' defaults, without reading the environment (tests, benchmarks, worker health)."""
    return server_capacity(Settings.model_construct())
