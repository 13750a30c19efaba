"""A stage whose poll loop stops coming back (a consumer stuck in its group join) turns NOT_SERVING,
under its own name and overall (what the chart's liveness probe asks), and SERVING again when the
loop resumes; draining or a failed stage is NOT_SERVING for good."""

from __future__ import annotations

import threading
import time

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from scicustom.adapters.memory_bus import InMemoryEventBus
from scicustom.core.errors import InvalidInput
from scicustom.grpc_server.server import start_server
from scicustom.workers.liveness import Heartbeat, WorkerHealth
from scicustom.workers.stage_consumer import StageWorker, WorkerOptions
from scicustom.workers.topics import Topics

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING
NAME = "scicustom.worker.tag"
DEADLINE_S = 0.4


class _StuckableConsumer:
    """Polls return at once, except while `stuck` is set: then a poll blocks until it is cleared,
    as kafka-python does inside ensure_active_group."""

    def __init__(self) -> None:
        self.stuck = threading.Event()
        self.released = threading.Event()
        self.polls = 0

    def poll(self, max_records: int = 100, timeout_s: float = 1.0) -> list:
        self.polls += 1
        if self.stuck.is_set():
            self.released.wait(30)
        time.sleep(min(timeout_s, 0.01))
        return []

    def commit(self) -> None:
        pass

    def close(self) -> None:
        self.released.set()


class _Bus(InMemoryEventBus):
    def __init__(self, consumer: _StuckableConsumer) -> None:
        super().__init__()
        self._consumer = consumer

    def consumer(self, group, topics):
        return self._consumer


class _Handler:
    stage = "tag"

    def handle(self, event):
        return []

    def on_dead_letter(self, event, error):
        return []


@pytest.fixture
def worker_process():
    """A StageWorker on the stuckable consumer, its health served over gRPC and watched as
    `scicustom worker` does."""
    consumer = _StuckableConsumer()
    worker = StageWorker(_Bus(consumer), Topics("t"), _Handler(), WorkerOptions(poll_timeout_s=0.01))
    server, health, port = start_server([], "127.0.0.1", 0, max_message_bytes=1 << 20)
    liveness = WorkerHealth(health, {NAME: worker.heartbeat}, DEADLINE_S)
    liveness.start_serving()
    stop = threading.Event()
    threads = [threading.Thread(target=worker.run, args=(stop,)),
               threading.Thread(target=liveness.watch, args=(stop, 0.02))]
    for thread in threads:
        thread.start()
    channel = grpc.insecure_channel(f"127.0.0.1:{port}")
    stub = health_pb2_grpc.HealthStub(channel)

    def status(name: str) -> int:
        return int(stub.Check(health_pb2.HealthCheckRequest(service=name), timeout=2).status)

    yield consumer, liveness, status, stop
    stop.set()
    consumer.released.set()
    for thread in threads:
        thread.join(10)
    channel.close()
    server.stop(None)


def _until(condition, timeout_s: float) -> float:
    start = time.monotonic()
    while not condition():
        assert time.monotonic() - start < timeout_s, "timed out"
        time.sleep(0.01)
    return time.monotonic() - start


def test_a_stuck_poll_turns_not_serving_after_the_deadline_and_serving_when_it_resumes(worker_process, caplog):
    consumer, _, status, _ = worker_process
    _until(lambda: consumer.polls >= 3, 5)
    time.sleep(DEADLINE_S * 1.5)  # polls keep coming back: well past the deadline, still serving
    assert status("") == status(NAME) == SERVING

    consumer.stuck.set()
    stuck_at = time.monotonic()
    _until(lambda: status("") == NOT_SERVING, 5)
    assert time.monotonic() - stuck_at >= DEADLINE_S * 0.9  # not before the deadline
    assert status(NAME) == NOT_SERVING
    assert any("has not come back" in r.getMessage() and "poll" in r.getMessage() for r in caplog.records)

    consumer.stuck.clear()
    consumer.released.set()
    _until(lambda: status("") == SERVING, 5)
    assert status(NAME) == SERVING


def test_draining_is_not_serving_for_good_whatever_the_heartbeats(worker_process):
    consumer, liveness, status, _ = worker_process
    _until(lambda: consumer.polls >= 3, 5)
    liveness.stop_serving()
    assert liveness.check() == set()  # the loop is alive, yet a check does not turn it back
    assert status("") == status(NAME) == NOT_SERVING


def test_one_late_stage_of_two_makes_the_process_not_serving():
    now = [0.0]
    fresh, late = Heartbeat(lambda: now[0]), Heartbeat(lambda: now[0])
    health = _RecordingHealth()
    liveness = WorkerHealth(health, {"a": fresh, "b": late}, 10.0)  # type: ignore[arg-type]
    now[0] = 11.0
    fresh.beat()
    assert liveness.check() == {"b"}
    assert health.statuses == {"a": SERVING, "b": NOT_SERVING, "": NOT_SERVING}
    with pytest.raises(InvalidInput, match="worker_liveness_deadline_s"):
        WorkerHealth(health, {}, 0)  # type: ignore[arg-type]


class _RecordingHealth:
    def __init__(self) -> None:
        self.statuses: dict[str, int] = {}

    def set(self, service: str, status: int) -> None:
        self.statuses[service] = status
