"""A restarted broker forgets the idempotent producer's id; kafka-python then fails that producer's
every later delivery (UnknownProducerId, then a fatal InitProducerId error). KafkaEventBus replaces
a producer that could not deliver, so publishing resumes once the broker is back (the broker-restart
chaos run failed on this). Own tansu broker: restarting the session's would empty its topics."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest

from scicustom.adapters.kafka_bus import KafkaEventBus
from scicustom.devstack.real_servers import accepts_connections, start_tansu
from tests.support.server_restart import restart_server

pytestmark = pytest.mark.integration

ATTEMPTS = 10


def test_publishing_resumes_after_the_broker_restarts(tmp_path: Path) -> None:
    kafka = start_tansu(tmp_path)
    bus = KafkaEventBus(kafka.bootstrap, flush_timeout_s=8)
    try:
        bus.send("restart.events", b'{"n": 1}', key="build-1")
        bus.flush()
        kafka.process.stop(grace_s=1)
        port = int(kafka.bootstrap.rsplit(":", 1)[1])
        restart_server(kafka.process, lambda _: accepts_connections(port))
        failures: list[str] = []
        for _ in range(ATTEMPTS):  # what a stage worker does in an outage: repeat the attempt, back off
            try:
                bus.send("restart.events", b'{"n": 2}', key="build-1")
                bus.flush()
                break
            except Exception as exc:  # each failure is recorded for the assertion message
                failures.append(type(exc).__name__)
                time.sleep(1.0)
        else:
            pytest.fail(f"no delivery in {ATTEMPTS} attempts after the restart: {failures}")
        reader = bus.consumer("restart-reader", ["restart.events"])
        try:
            records = reader.poll(max_records=10, timeout_s=10)
        finally:
            reader.close()  # before the broker stops: a live client would log reconnects into later tests
        assert [m.value for m in records] == [b'{"n": 2}']  # the in-memory broker lost the first one
    finally:
        bus.close()
        kafka.process.stop(grace_s=1)


def test_a_producer_given_up_on_stops_its_network_thread(tmp_path: Path) -> None:
    """The broker stays down: the flush times out with records pending. The producer that is given up
    on must stop its network thread, not retry them for ever beside the next one (one thread leaked
    per outage before)."""
    kafka = start_tansu(tmp_path)
    bus = KafkaEventBus(kafka.bootstrap, client_id="given-up-on", flush_timeout_s=3)
    try:
        bus.send("down.events", b"1", key="k")
        bus.flush()
        kafka.process.stop(grace_s=1)
        bus.send("down.events", b"2", key="k")
        with pytest.raises(Exception):  # noqa: B017  the broker is down: whatever kafka-python raises
            bus.flush()
        deadline = time.monotonic() + 10
        while _network_threads("given-up-on") and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not _network_threads("given-up-on")
    finally:
        bus.close()
        kafka.process.stop(grace_s=1)


def _network_threads(client_id: str) -> list[str]:
    return [t.name for t in threading.enumerate() if t.name.startswith(client_id) and t.is_alive()]
