"""`scicustom service <name> [--host H] [--port P]`: one gRPC service in this process.

Host, port, message-size limit and shutdown grace come from SCICUSTOM_GRPC_* (flags override the
first two). Runs until SIGTERM/SIGINT, then drains gracefully (see grpc_server/server.py).
Prometheus metrics are served on SCICUSTOM_METRICS_PORT (telemetry/metrics_endpoint.py).
Every RPC but health and reflection needs a bearer token of SCICUSTOM_AUTH_TOKENS_FILE (required in
the cluster profile unless SCICUSTOM_AUTH_DISABLED=true); SCICUSTOM_TLS_* turn on (mutual) TLS.
"""

from __future__ import annotations

import argparse
import importlib
import logging
from typing import TYPE_CHECKING

from scicustom.core.errors import InvalidInput, PreconditionFailed

if TYPE_CHECKING:
    import grpc

    from scicustom.bootstrap import Context
    from scicustom.grpc_server.capacity import ServerCapacity


# Service name -> the module whose `binding(ctx)` serves it (imported only for the service asked for).
SERVICES = {
    "ontology": "scicustom.ontology.servicer",
    "tagger": "scicustom.tagger.servicer",
    "jury": "scicustom.jury.servicer",
    "retrieval": "scicustom.retrieval.servicer",
    "selector": "scicustom.selector.servicer",
    "generator": "scicustom.generator.servicer",
    "scorer": "scicustom.scorers.servicer",
    "builds": "scicustom.builds.servicer",
    "ingest": "scicustom.ingest.servicer",
    "papers": "scicustom.papers.servicer",
}


EVENT_DRIVEN = ("builds", "ingest", "papers")


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser("service", help="run one gRPC service")
    parser.add_argument("name", help=f"one of: {', '.join(SERVICES)}")
    parser.add_argument("--host", default=None,
                        help="interface to bind (default SCICUSTOM_GRPC_HOST; 0.0.0.0 in a pod)")
    parser.add_argument("--port", type=int, default=None,
                        help="port (default SCICUSTOM_GRPC_PORT; 0 picks a free one and logs it)")
    parser.set_defaults(handler=run_service)


def server_interceptors(capacity: ServerCapacity | None = None,
                        authentication: grpc.ServerInterceptor | None = None) -> list[grpc.ServerInterceptor]:
    """Outermost first: the tracing span encloses the metrics (whose latency exemplar is its trace
    id) and the request log (which prints it), and both wrap the status mapping, so they count and
    log the mapped code. The concurrency limiter (`capacity`, default the settings' defaults: pass the
    server's own) sits inside them, so its RESOURCE_EXHAUSTED refusals are counted and logged.
    `authentication` (grpc_server/authentication.py) comes before the limiter: a call without a
    valid token is refused (UNAUTHENTICATED, counted and logged too) before it can take a slot."""
    from scicustom.grpc_server.capacity import default_capacity
    from scicustom.grpc_server.concurrency_limits import ConcurrencyLimitInterceptor
    from scicustom.grpc_server.request_log import RequestLogInterceptor
    from scicustom.grpc_server.rpc_metrics import RpcMetricsInterceptor
    from scicustom.grpc_server.status_mapping import StatusMappingInterceptor
    from scicustom.telemetry.grpc_tracing import server_interceptor

    return [server_interceptor(), RpcMetricsInterceptor(), RequestLogInterceptor(),
            *([authentication] if authentication is not None else []),
            ConcurrencyLimitInterceptor(capacity or default_capacity()), StatusMappingInterceptor()]


def run_service(args: argparse.Namespace, ctx: Context) -> int:
    module_name = SERVICES.get(args.name)
    if module_name is None:
        raise InvalidInput("name", f"{args.name!r} is not one of {', '.join(SERVICES)}")
    if args.port is not None and not 0 <= args.port < 65536:
        raise InvalidInput("--port", f"{args.port} is not a port")
    from scicustom.grpc_server.authentication import authentication_for
    from scicustom.grpc_server.capacity import server_capacity
    from scicustom.grpc_server.server import serve
    from scicustom.grpc_server.tls import server_credentials
    from scicustom.telemetry.metrics_endpoint import serve_metrics
    from scicustom.telemetry.tracing_setup import configure_tracing, shutdown_tracing

    capacity = server_capacity(ctx.settings)  # settings that cannot hold fail before anything starts
    if args.name in EVENT_DRIVEN and not ctx.cluster:
        # Their work happens in Kafka workers; an in-process bus in a lone server reaches none.
        raise PreconditionFailed(f"the {args.name} service needs the cluster profile (Kafka and the stage "
                                 "workers); embedded, use `scicustom build` / `scicustom corpus import`")
    settings = ctx.settings
    # Before anything is served (and before the process-wide tracer is installed): a cluster
    # service without tokens (or with unreadable ones or certificates) does not start at all.
    authentication = authentication_for(settings)
    credentials = server_credentials(settings)
    configure_tracing(f"scicustom-{args.name}")
    binding = importlib.import_module(module_name).binding(ctx)
    # The request log and the server's own lines are the service's output: show them at INFO.
    logging.getLogger("scicustom.grpc_server").setLevel(logging.INFO)
    logging.getLogger("scicustom.telemetry.metrics_endpoint").setLevel(logging.INFO)
    metrics = serve_metrics(settings)
    try:
        serve([binding], args.host or settings.grpc_host, settings.grpc_port if args.port is None else args.port,
              grace_s=settings.grpc_shutdown_grace_s, max_message_bytes=settings.grpc_max_message_bytes,
              interceptors=server_interceptors(capacity, authentication), capacity=capacity,
              credentials=credentials, health_port=settings.grpc_health_port)
    finally:
        if metrics is not None:
            metrics.stop()
    shutdown_tracing()
    return 0
