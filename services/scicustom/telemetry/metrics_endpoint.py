"""The HTTP endpoint Prometheus scrapes: `GET /metrics` on its own port, in a daemon thread.

The port comes from SCICUSTOM_METRICS_PORT: unset, `scicustom service` and `scicustom worker` serve
on DEFAULT_METRICS_PORT in the cluster profile and not at all in the local one; 0 turns the
endpoint off. The host is SCICUSTOM_METRICS_HOST, else the gRPC host. One-shot CLI commands never
start it. The text format is Prometheus 0.0.4 unless the scraper's Accept header asks for
OpenMetrics, which also carries the exemplars.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from wsgiref.simple_server import WSGIServer

from prometheus_client import start_http_server

from scicustom.config import Settings
from scicustom.core.errors import PreconditionFailed
from scicustom.telemetry.metrics import PlatformMetrics, process_metrics

log = logging.getLogger(__name__)

DEFAULT_METRICS_PORT = 9464  # the port OpenTelemetry's Prometheus exporter uses by convention


@dataclass
class MetricsEndpoint:
    host: str
    port: int  # the bound port (the one asked for, or the free one picked for 0)
    _server: WSGIServer
    _thread: threading.Thread

    @property
    def url(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/metrics"

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


def start_metrics_endpoint(host: str, port: int, metrics: PlatformMetrics | None = None) -> MetricsEndpoint:
    """Serve `metrics` (the process's by default) on host:port; port 0 picks a free one."""
    if not 0 <= port < 65536:
        raise PreconditionFailed(f"metrics port {port} is not a port")
    registry = (metrics or process_metrics()).registry
    try:
        server, thread = start_http_server(port, addr=host, registry=registry)
    except OSError as exc:
        raise PreconditionFailed(f"cannot serve metrics on {host}:{port}: {exc}") from None
    return MetricsEndpoint(host, int(server.server_port), server, thread)


def configured_port(settings: Settings) -> int:
    """The metrics port a long-running process uses; 0: no endpoint."""
    if settings.metrics_port is not None:
        return settings.metrics_port
    return DEFAULT_METRICS_PORT if settings.profile == "cluster" else 0


def serve_metrics(settings: Settings) -> MetricsEndpoint | None:
    """The endpoint of `scicustom service` / `scicustom worker`, when the settings ask for one."""
    port = configured_port(settings)
    if port == 0:
        return None
    endpoint = start_metrics_endpoint(settings.metrics_host or settings.grpc_host, port)
    log.info("metrics on %s", endpoint.url)
    return endpoint
