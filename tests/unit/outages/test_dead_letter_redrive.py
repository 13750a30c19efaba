"""`dlq list|redrive` and BuildService.RedriveDeadLetters on the in-memory bus: letters go back to their
topic with their headers, once; the RPC is an admin's only."""

from __future__ import annotations

import threading

import grpc

from scicustom.adapters.filesystem_store import FilesystemObjectStore
from scicustom.adapters.memory_bus import InMemoryEventBus
from scicustom.builds.servicer import binding
from scicustom.builds.v1 import builds_pb2 as pb
from scicustom.builds.v1 import builds_pb2_grpc as pb_grpc
from scicustom.events.v1 import events_pb2 as ev
from scicustom.workers.dead_letters import REDRIVEN_HEADER, list_dead_letters, redrive_dead_letters
from scicustom.workers.envelopes import PoisonEvent, envelope, headers_for
from scicustom.workers.stage_consumer import Outgoing, StageWorker, WorkerOptions
from scicustom.workers.topics import STAGES, Topics
from tests.support.grpc_loopback import loopback, rpc_error
from tests.support.tenant_tokens import tenants
from tests.unit.workers.conftest import StubContext, StubSettings

TOPICS = Topics(StubSettings().topic_prefix)


class FlakyTagger:
    """Dead-letters every batch while `broken`; tags it once fixed."""

    stage = "tag"

    def __init__(self) -> None:
        self.broken = True
        self.tagged: list[str] = []

    def handle(self, event: ev.Envelope) -> list[Outgoing]:
        if self.broken:
            raise PoisonEvent("the tagger model is missing")
        self.tagged.append(event.batch_id)
        return []

    def on_dead_letter(self, event: ev.Envelope, error: str) -> list[Outgoing]:
        return []


def publish_batch(bus, batch_id: str) -> None:
    message = envelope("ingest.items-imported", batch_id=batch_id, items_batch=ev.ItemsBatch(source=batch_id, count=1))
    bus.send(TOPICS.consumed_by("tag"), message.SerializeToString(), key=batch_id, headers=headers_for(message))


def drain(bus, handler: FlakyTagger, until) -> None:
    options = WorkerOptions(max_attempts=1, breaker_threshold=100, poll_timeout_s=0.02)
    worker = StageWorker(bus, TOPICS, handler, options)
    stop = threading.Event()
    thread = threading.Thread(target=worker.run, args=(stop,))
    thread.start()
    for _ in range(250):
        if until(worker):
            break
        thread.join(0.02)
    stop.set()
    thread.join()
    assert until(worker)


def test_redrive_republishes_with_headers_and_never_loops():
    bus, handler = InMemoryEventBus(), FlakyTagger()
    for batch in ("b1", "b2", "b3"):
        publish_batch(bus, batch)
    drain(bus, handler, lambda w: w.stats.dead_lettered == 3)
    listed = list_dead_letters(bus, TOPICS, "tag", limit=10, wait_s=0.2)
    source = TOPICS.consumed_by("tag")
    assert [(d.topic, d.offset, d.redriven) for d in listed] == [(source, i, False) for i in range(3)]
    assert list_dead_letters(bus, TOPICS, "tag", limit=2, wait_s=0.2)[1].offset == 1  # listing consumes nothing

    first = redrive_dead_letters(bus, TOPICS, "tag", limit=2, wait_s=0.2)
    assert [d.offset for d in first.redriven] == [0, 1] and not first.skipped
    consumer = bus.consumer("probe", [TOPICS.consumed_by("tag")])
    again = consumer.poll(max_records=10, timeout_s=0.1)[3:]
    assert [r.key for r in again] == ["b1", "b2"]
    assert all(r.headers[REDRIVEN_HEADER] == "1" and r.headers["scicustom-event-type"] == "ingest.items-imported"
               for r in again)

    drain(bus, handler, lambda w: w.stats.dead_lettered == 2)   # still broken: b1 and b2 die again
    second = redrive_dead_letters(bus, TOPICS, "tag", limit=10, wait_s=0.2)
    assert [d.offset for d in second.redriven] == [2]            # b3 had not been redriven yet
    assert len(second.skipped) == 2 and all(d.redriven for d in second.skipped)
    handler.broken = False
    drain(bus, handler, lambda w: w.stats.handled == 1)
    assert handler.tagged == ["b3"]
    assert redrive_dead_letters(bus, TOPICS, "tag", limit=10, wait_s=0.2).redriven == []


def test_bad_dlq_and_reaper_arguments_exit_2_with_one_line(capsys, tmp_path, monkeypatch):
    from scicustom.cli import main

    monkeypatch.setenv("SCICUSTOM_HOME", str(tmp_path))
    assert main(["--profile", "local", "dlq", "redrive", "--stage", "nope"]) == 2
    assert main(["--profile", "local", "dlq", "list", "--stage", "vote", "--limit", "0"]) == 2
    assert main(["--profile", "local", "reaper", "--interval", "0"]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert lines == ["scicustom: error: --stage: 'nope' is not one of " + ", ".join(STAGES),
                     "scicustom: error: --limit: must be >= 1 and <= 10000",
                     "scicustom: error: --interval: must be > 0"]


def test_the_redrive_rpc_runs_the_same_redrive_for_an_admin_only(tmp_path):
    bus, handler = InMemoryEventBus(), FlakyTagger()
    for batch in ("b1", "b2"):
        publish_batch(bus, batch)
    drain(bus, handler, lambda w: w.stats.dead_lettered == 2)
    known = tenants(tmp_path, "acme", admins=("ops",))
    ctx = StubContext(FilesystemObjectStore(tmp_path / "store"), bus)
    with loopback([binding(ctx)], interceptors=known.interceptors()) as channel:
        stub = pb_grpc.BuildServiceStub(channel)
        request = pb.RedriveDeadLettersRequest(stage="tag", wait_s=0.2)
        denied = rpc_error(lambda: stub.RedriveDeadLetters(request, metadata=known.metadata("acme"), timeout=10))
        assert denied.code() == grpc.StatusCode.PERMISSION_DENIED
        assert "scicustom.builds.v1.BuildService/RedriveDeadLetters" in denied.details()

        answer = stub.RedriveDeadLetters(request, metadata=known.metadata("ops"), timeout=10)
        source = TOPICS.consumed_by("tag")
        assert [(d.stage, d.topic, d.offset, d.redriven) for d in answer.redriven] == [("tag", source, 0, False),
                                                                                      ("tag", source, 1, False)]
        assert "the tagger model is missing" in answer.redriven[0].error and not answer.skipped
        drain(bus, handler, lambda w: w.stats.dead_lettered == 2)  # still broken: both die again
        again = stub.RedriveDeadLetters(request, metadata=known.metadata("ops"), timeout=10)
        assert not again.redriven and [d.redriven for d in again.skipped] == [True, True]  # never in a loop

        for bad, field in ((pb.RedriveDeadLettersRequest(stage="nope"), "stage: 'nope' is not one of"),
                           (pb.RedriveDeadLettersRequest(stage="tag", limit=10_001), "limit: must be >= 1"),
                           (pb.RedriveDeadLettersRequest(stage="tag", wait_s=-1), "wait_s: must be > 0")):
            error = rpc_error(lambda: stub.RedriveDeadLetters(bad, metadata=known.metadata("ops"), timeout=10))  # noqa: B023
            assert error.code() == grpc.StatusCode.INVALID_ARGUMENT and error.details().startswith(field)
