"""`scicustom service <name>`: the name table, bad input, and one real process from start to SIGTERM."""

from __future__ import annotations

import importlib
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import grpc
import pytest
from grpc_health.v1 import health_pb2

from scicustom.cli import main
from scicustom.commands.service import SERVICES, server_interceptors
from scicustom.grpc_server.concurrency_limits import ConcurrencyLimitInterceptor
from scicustom.grpc_server.request_log import RequestLogInterceptor
from scicustom.grpc_server.rpc_metrics import RpcMetricsInterceptor
from scicustom.grpc_server.status_mapping import StatusMappingInterceptor
from scicustom.ontology.v1 import ontology_pb2 as pb
from scicustom.ontology.v1 import ontology_pb2_grpc as pb_grpc
from scicustom.telemetry.grpc_tracing import TracingServerInterceptor
from tests.support.grpc_loopback import health_status, loopback, reflected_services, rpc_error
from tests.unit.grpc_services.corpus_home import empty_home, units_file
from tests.unit.telemetry.prometheus_scrape import scrape

MINE = {"ontology": "scicustom.ontology.v1.OntologyService", "tagger": "scicustom.tagger.v1.TaggerService",
        "jury": "scicustom.jury.v1.JuryService", "retrieval": "scicustom.retrieval.v1.RetrievalService"}


def test_every_service_of_this_area_serves_health_under_its_full_name(tmp_path):
    ctx = empty_home(tmp_path)
    bindings = [importlib.import_module(SERVICES[name]).binding(ctx) for name in MINE]
    assert [b.name for b in bindings] == list(MINE.values())
    with loopback(bindings) as channel:
        for name in ["", *MINE.values()]:
            assert health_status(channel, name) == health_pb2.HealthCheckResponse.SERVING
        assert set(MINE.values()) <= reflected_services(channel)


def test_the_name_table_covers_the_platform_and_the_interceptor_order():
    assert list(SERVICES) == ["ontology", "tagger", "jury", "retrieval", "selector", "generator", "scorer",
                              "builds", "ingest", "papers"]
    assert SERVICES["scorer"] == "scicustom.scorers.servicer"
    assert [type(i) for i in server_interceptors()] == [TracingServerInterceptor, RpcMetricsInterceptor,
                                                         RequestLogInterceptor, ConcurrencyLimitInterceptor,
                                                         StatusMappingInterceptor]


@pytest.mark.parametrize(("argv", "message"), [
    (["service", "nope"], "scicustom: error: name: 'nope' is not one of ontology, tagger, jury"),
    (["service", "ontology", "--port", "70000"], "scicustom: error: --port: 70000 is not a port"),
    (["service", "ontology", "--port", "-1"], "scicustom: error: --port: -1 is not a port"),
    (["--profile", "local", "service", "builds"], "scicustom: error: the builds service needs the cluster profile"),
    (["--profile", "local", "service", "ingest"], "scicustom: error: the ingest service needs the cluster profile"),
])
def test_bad_input_exits_2_with_one_line(argv, message, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(message)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_a_service_process_serves_logs_each_rpc_and_exits_0_on_sigterm(tmp_path):
    port, metrics_port = _free_port(), _free_port()
    env = {**os.environ, "SCICUSTOM_HOME": str(tmp_path / "home"), "SCICUSTOM_METRICS_PORT": str(metrics_port),
           "SCICUSTOM_UNITS_FILE": str(units_file(tmp_path / "units.json")), "SCICUSTOM_GRPC_SHUTDOWN_GRACE_S": "2"}
    command = [str(Path(sys.executable).parent / "scicustom"), "service", "ontology", "--port", str(port)]
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            grpc.channel_ready_future(channel).result(timeout=60)
            assert health_status(channel, MINE["ontology"]) == health_pb2.HealthCheckResponse.SERVING
            page = pb_grpc.OntologyServiceStub(channel).ListUnits(pb.ListUnitsRequest(page_size=2), timeout=10)
            assert [u.id for u in page.units] == ["u1", "u2"]
            error = rpc_error(lambda: pb_grpc.OntologyServiceStub(channel).ListUnits(
                pb.ListUnitsRequest(page_size=5000), timeout=10))  # at most 1000 a page
            assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
        metrics = scrape(f"http://127.0.0.1:{metrics_port}/metrics")  # Prometheus scraping the running service
        process.send_signal(signal.SIGTERM)
        output, _ = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0, output
    assert f"serving {MINE['ontology']} on 127.0.0.1:{port}" in output
    assert "rpc method=/scicustom.ontology.v1.OntologyService/ListUnits code=OK" in output
    assert "signal 15: shutting down" in output
    with socket.socket() as s:  # the port is free again
        s.bind(("127.0.0.1", port))
    requests = {code: metrics.value("scicustom_rpc_requests_total", service=MINE["ontology"], method="ListUnits",
                                    code=code) for code in ("OK", "INVALID_ARGUMENT")}
    assert requests == {"OK": 1, "INVALID_ARGUMENT": 1}
    assert metrics.value("scicustom_rpc_latency_seconds_count", service=MINE["ontology"], method="ListUnits") == 2
    assert f"metrics on http://127.0.0.1:{metrics_port}/metrics" in output
    with socket.socket() as s:  # nothing listens on the metrics port any more (the scrape may be in TIME_WAIT)
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", metrics_port))
