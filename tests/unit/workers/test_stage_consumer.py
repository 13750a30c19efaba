"""The worker loop: retries with backoff, dead letters for poison and exhausted records, the breaker."""

from __future__ import annotations

import threading

from scicustom.adapters.memory_bus import InMemoryEventBus
from scicustom.events.v1 import events_pb2 as ev
from scicustom.workers.envelopes import PoisonEvent, envelope, headers_for
from scicustom.workers.stage_consumer import EXIT_BREAKER, EXIT_DRAINED, Outgoing, StageWorker, WorkerOptions
from scicustom.workers.topics import Topics

TOPICS = Topics("t")


class _Handler:
    """The `tag` stage: echoes each batch to items-tagged; fails as told by the batch's source."""

    stage = "tag"

    def __init__(self) -> None:
        self.calls: dict[str, int] = {}

    def handle(self, event: ev.Envelope) -> list[Outgoing]:
        source = event.items_batch.source
        self.calls[source] = self.calls.get(source, 0) + 1
        if source.startswith("flaky") and self.calls[source] == 1:
            raise ConnectionError("tagger unavailable")
        if source.startswith("broken"):
            raise RuntimeError("always fails")
        if source.startswith("poison"):
            raise PoisonEvent("batch bytes do not match their hash")
        out = envelope("ingest.items-tagged", batch_id=event.batch_id, items_batch=event.items_batch)
        return [Outgoing(TOPICS.of("ingest.items-tagged"), event.batch_id, out)]

    def on_dead_letter(self, event: ev.Envelope, error: str) -> list[Outgoing]:
        return []


def _publish(bus: InMemoryEventBus, source: str, raw: bytes | None = None) -> None:
    message = envelope("ingest.items-imported", batch_id=source, items_batch=ev.ItemsBatch(source=source, count=1))
    bus.send(TOPICS.consumed_by("tag"), raw if raw is not None else message.SerializeToString(), key=source,
             headers=headers_for(message))


def _drain(bus: InMemoryEventBus, handler: _Handler, options: WorkerOptions, expected: int) -> tuple[StageWorker, int]:
    sleeps: list[float] = []
    worker = StageWorker(bus, TOPICS, handler, options, sleep=sleeps.append)
    stop = threading.Event()
    result: list[int] = []
    thread = threading.Thread(target=lambda: result.append(worker.run(stop)))
    thread.start()
    while thread.is_alive() and worker.stats.handled + worker.stats.dead_lettered < expected:
        thread.join(0.02)
    stop.set()
    thread.join()
    worker.sleeps = sleeps  # type: ignore[attr-defined]
    return worker, result[0]


def _out(bus: InMemoryEventBus, topic: str) -> list[bytes]:
    consumer = bus.consumer(f"reader-{topic}", [topic])
    return [r.value for r in consumer.poll(max_records=100, timeout_s=0.1)]


def test_transient_failure_is_retried_with_backoff_then_succeeds():
    bus = InMemoryEventBus()
    _publish(bus, "flaky-1")
    worker, code = _drain(bus, _Handler(), WorkerOptions(max_attempts=3, backoff_s=0.5, poll_timeout_s=0.05), 1)
    assert code == EXIT_DRAINED
    assert (worker.stats.handled, worker.stats.retries, worker.stats.dead_lettered) == (1, 1, 0)
    assert len(worker.sleeps) == 1 and 0.25 <= worker.sleeps[0] <= 0.5  # an outage's backoff has jitter
    assert len(_out(bus, TOPICS.of("ingest.items-tagged"))) == 1


def test_poison_and_exhausted_records_are_dead_lettered_while_later_records_flow():
    bus = InMemoryEventBus()
    _publish(bus, "garbage", raw=b"\xff\x00 not a protobuf")
    _publish(bus, "broken-1")
    _publish(bus, "poison-1")
    _publish(bus, "ok-1")
    handler = _Handler()
    worker, code = _drain(bus, handler, WorkerOptions(max_attempts=3, backoff_s=0.1, poll_timeout_s=0.05), 4)
    assert code == EXIT_DRAINED
    assert handler.calls == {"broken-1": 3, "poison-1": 1, "ok-1": 1}  # poison is never retried
    assert worker.sleeps == [0.1, 0.2]                                  # exponential backoff
    letters = [ev.DeadLetter.FromString(v) for v in _out(bus, TOPICS.dead_letters("tag"))]
    assert [letter.attempts for letter in letters] == [1, 3, 1]
    assert letters[0].value == b"\xff\x00 not a protobuf" and "undecodable" in letters[0].error
    assert letters[1].error == "RuntimeError: always fails"
    assert all(letter.topic == TOPICS.consumed_by("tag") for letter in letters)
    tagged = [ev.Envelope.FromString(v) for v in _out(bus, TOPICS.of("ingest.items-tagged"))]
    assert [e.batch_id for e in tagged] == ["ok-1"]


def test_breaker_stops_a_worker_that_dead_letters_everything():
    bus = InMemoryEventBus()
    for i in range(6):
        _publish(bus, f"broken-{i}")
    _publish(bus, "ok-after")
    worker, code = _drain(bus, _Handler(), WorkerOptions(max_attempts=1, breaker_threshold=3, poll_timeout_s=0.05), 7)
    assert code == EXIT_BREAKER
    assert worker.stats.dead_lettered == 3 and worker.stats.handled == 0
    # What it did not reach stays on the topic for a healthy member of the group.
    rest = bus.consumer(TOPICS.group("tag"), [TOPICS.consumed_by("tag")]).poll(max_records=10, timeout_s=0.1)
    assert len(rest) == 4


class _BrokenBus(InMemoryEventBus):
    """A bus whose consumers fail outside any record: the broker is gone."""

    def consumer(self, group, topics):
        consumer = super().consumer(group, topics)

        def poll(max_records=100, timeout_s=1.0):
            raise ConnectionError("broker unreachable")

        consumer.poll = poll
        return consumer


def test_a_failing_consumer_ends_its_stage_with_an_exit_code_not_a_dead_thread():
    from scicustom.commands.worker import consume_stage
    from scicustom.workers.stage_consumer import EXIT_CONSUMER_FAILED

    worker = StageWorker(_BrokenBus(), TOPICS, _Handler(), WorkerOptions(poll_timeout_s=0.05))
    assert consume_stage(worker, threading.Event()) == EXIT_CONSUMER_FAILED
    _publish(healthy := InMemoryEventBus(), "ok")
    stop = threading.Event()
    stop.set()
    assert consume_stage(StageWorker(healthy, TOPICS, _Handler(), WorkerOptions()), stop) == EXIT_DRAINED


def test_dead_letters_and_logs_carry_no_secret(capsys):  # type: ignore[no-untyped-def]
    """A client error echoing a credentialed URL or a key must not reach the dead-letter topic or logs."""
    import logging

    from scicustom.telemetry.log_format import configure_logging

    class _Leaky(_Handler):
        def handle(self, event: ev.Envelope) -> list[Outgoing]:
            raise ConnectionError("PUT http://admin:planted-s3-secret-42@127.0.0.1:9000/bucket failed; "
                                  "Authorization: Bearer sk-planted0123456789 (key planted-s3-secret-42)")

    configure_logging("text", False, ["planted-s3-secret-42"])
    try:
        bus = InMemoryEventBus()
        _publish(bus, "leaky-1")
        worker, _ = _drain(bus, _Leaky(), WorkerOptions(max_attempts=2, backoff_s=0.0, poll_timeout_s=0.05,
                                                        outage_budget_s=0.0), 1)
    finally:
        root = logging.getLogger()
        for handler in [h for h in root.handlers if type(h).__name__ == "_ConfiguredHandler"]:
            root.removeHandler(handler)
    assert worker.stats.dead_lettered == 1
    letter = ev.DeadLetter.FromString(_out(bus, TOPICS.dead_letters("tag"))[0])
    logged = capsys.readouterr().err
    assert "dead-lettered" in logged and "Traceback" in logged  # the retry warning's exception text too
    for text in (letter.error, logged):
        assert "ConnectionError" in text and "127.0.0.1:9000" in text
        assert "planted-s3-secret-42" not in text and "sk-planted0123456789" not in text
