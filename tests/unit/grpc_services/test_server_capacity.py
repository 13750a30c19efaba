"""Server capacity from settings: the thread pool split, per-method stream limits, keepalive options,
and settings that cannot hold (no thread left for unary calls or health) refused with the field named."""

from __future__ import annotations

import pytest

from scicustom.cli import main
from scicustom.config import Settings
from scicustom.core.errors import InvalidInput
from scicustom.grpc_server.capacity import default_capacity, server_capacity


def test_the_defaults_leave_threads_for_unary_calls_and_health_whatever_the_streams():
    capacity = default_capacity()
    assert capacity == server_capacity(Settings())  # the environment of the tests sets none of them
    assert capacity.max_in_flight == capacity.max_workers - capacity.health_reserve
    assert capacity.max_streams < capacity.max_in_flight
    assert capacity.stream_limit("/scicustom.builds.v1.BuildService/WatchBuild") == 24
    assert capacity.stream_limit("/grpc.health.v1.Health/Watch") == 2  # any other stream
    assert capacity.maximum_concurrent_rpcs == capacity.max_workers + capacity.max_queued


def test_keepalive_and_limits_come_from_settings():
    capacity = server_capacity(Settings(grpc_keepalive_time_s=30, grpc_keepalive_timeout_s=5,
                                        grpc_max_connection_age_s=600, grpc_max_workers=20, grpc_max_streams=10,
                                        grpc_stream_limits={"a.v1.S/Watch": 40}))
    options = dict(capacity.options())
    assert options["grpc.keepalive_time_ms"] == 30_000 and options["grpc.keepalive_timeout_ms"] == 5_000
    assert options["grpc.max_connection_age_ms"] == 600_000
    assert options["grpc.http2.max_pings_without_data"] == 0  # quiet streams keep being pinged
    assert capacity.stream_limit("/a.v1.S/Watch") == 10  # never above the streams' share


@pytest.mark.parametrize(("fields", "message"), [
    ({"grpc_max_workers": 8, "grpc_max_streams": 4, "grpc_health_reserve_threads": 8},
     "grpc_health_reserve_threads: must be >= 1 and below grpc_max_workers (8)"),
    ({"grpc_max_workers": 8, "grpc_max_streams": 4}, "grpc_max_streams: must be >= 1 and below grpc_max_workers - "
     "grpc_health_reserve_threads (4): unary calls need a thread"),
    ({"grpc_stream_limits": {"/a.v1.S/Watch": 2}}, "grpc_stream_limits: '/a.v1.S/Watch': 2 is not"),
])
def test_settings_that_cannot_hold_are_refused(fields, message):
    with pytest.raises(InvalidInput) as caught:
        server_capacity(Settings(**fields))
    assert str(caught.value).startswith(message)


def test_the_service_command_refuses_them_with_one_line(monkeypatch, capsys, tmp_path):
    monkeypatch.setenv("SCICUSTOM_HOME", str(tmp_path))
    monkeypatch.setenv("SCICUSTOM_GRPC_MAX_STREAMS", "60")
    assert main(["service", "ontology", "--port", "0"]) == 2
    assert capsys.readouterr().err.strip() == ("scicustom: error: grpc_max_streams: must be >= 1 and below "
                                               "grpc_max_workers - grpc_health_reserve_threads (60): unary "
                                               "calls need a thread")
