"""The event decoders and every stage handler, fed arbitrary records.

- `workers/envelopes.decode`: any bytes decode to a complete envelope or raise PoisonEvent.
- `adapters/event_json.decode_event`: any bytes decode to an Event with a JSON-object payload or
  raise UndecodableEvent; a subscription dead-letters such a record and keeps running.
- `workers/paper_events`: whatever a caller names a paper, its announcement decodes.
- Every stage handler (builds, standing, ingest, papers) behind the real StageWorker on the
  in-memory bus: raw bytes, arbitrary envelopes (valid protobuf with wrong, missing or huge fields
  and wrong payload kinds) and mutations of the records the stage really consumed. Each record ends
  handled or as exactly one dead-letter record carrying its bytes, the worker never raises, and the
  finished build, batch and paper keep their state and bytes; no build has output without a manifest.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scicustom.adapters.event_json import UndecodableEvent, decode_event
from scicustom.adapters.memory_bus import InMemoryEventBus
from scicustom.app.build.build_records import PREFIX as BUILDS_PREFIX
from scicustom.events.v1 import events_pb2 as ev
from scicustom.ports import BusMessage, Event
from scicustom.workers.envelopes import ID_HEADER, SCHEMA_VERSION, TYPE_HEADER, PoisonEvent, decode
from scicustom.workers.paper_events import PaperSubmittedPublisher, RefusedPaperDeadLetters
from scicustom.workers.stage_consumer import StageWorker, WorkerOptions
from scicustom.workers.topics import BUILD_FAILED, PAPER_SUBMITTED
from tests.fuzz.event_world import STAGES, EventWorld, event_world
from tests.fuzz.fuzz_settings import fuzzed
from tests.fuzz.proto_messages import TEXT, messages

HEADERS = st.dictionaries(
    st.one_of(st.sampled_from(["traceparent", "tracestate", "baggage", TYPE_HEADER, ID_HEADER]), TEXT),
    st.one_of(st.sampled_from(["00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01", "00-zz-yy-01", ""]), TEXT),
    max_size=4)


def _message(topic: str, value: bytes, key: str | None, headers: dict[str, str], offset: int = 0) -> BusMessage:
    return BusMessage(topic, 0, offset, key, value, headers)


# -- the protobuf envelope ---------------------------------------------------------------------------
def _check_decoded(value: bytes) -> None:
    try:
        event = decode(_message("t.any", value, None, {}))
    except PoisonEvent:
        return
    assert event.event_id and event.type and event.schema_version == SCHEMA_VERSION
    assert event.WhichOneof("body") is not None


@fuzzed()
@given(value=st.binary(max_size=512))
def test_any_bytes_decode_to_an_envelope_or_a_poison_event(value: bytes) -> None:
    _check_decoded(value)


@fuzzed()
@given(envelope=messages(ev.Envelope.DESCRIPTOR, {"schema_version": st.sampled_from([0, 1, 2, 2**31 - 1, 2**32 - 1])}),
       cut=st.one_of(st.none(), st.integers(0, 200)))
def test_any_envelope_and_any_truncation_decode_or_are_poison(envelope: ev.Envelope, cut: int | None) -> None:
    data = envelope.SerializeToString()
    _check_decoded(data if cut is None else data[:cut])


# -- the JSON event port ---------------------------------------------------------------------------
@fuzzed()
@given(value=st.one_of(st.binary(max_size=256), st.text(max_size=64).map(lambda t: t.encode("utf-8", "surrogatepass")),
                       st.sampled_from([b"{}", b"[]", b"1", b"null", b'"x"', b'{"a": NaN}', b"\xef\xbb\xbf{}",
                                        b'{"a": 1e999}', b"[" * 100_000])),
       key=st.one_of(st.none(), TEXT), headers=HEADERS)
def test_any_bytes_decode_to_an_event_or_an_undecodable_event(value: bytes, key: str | None,
                                                              headers: dict[str, str]) -> None:
    try:
        event = decode_event(_message("t.json", value, key, headers))
    except UndecodableEvent as exc:
        assert str(exc).startswith("t.json@0:0: ")
        return
    assert isinstance(event, Event) and isinstance(event.payload, dict)
    assert event.key == (key or "") and dict(event.headers) == headers


def test_a_subscription_dead_letters_undecodable_records_and_keeps_handling():
    bus = InMemoryEventBus()
    handled: list[Event] = []
    for value in (b'{"n": 1}', b"\xff\xfe not json", b"[1, 2]", b"[" * 100_000, b'{"n": 2}'):
        bus.send("t.events", value, key="k")
    bus.subscribe("t.events", handled.append)
    deadline = time.monotonic() + 10
    while len(handled) < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    (subscription,) = bus.subscriptions
    assert subscription.running and subscription.error is None
    assert [e.payload for e in handled] == [{"n": 1}, {"n": 2}]
    letters = bus.consumer("reader", ["t.events.dead-letter"]).poll(max_records=10, timeout_s=0.5)
    assert [m.value[:8] for m in letters] == [b"\xff\xfe not j", b"[1, 2]", b"[" * 8]
    assert all(m.headers["scicustom-error"] for m in letters)
    bus.close()


# -- paper announcements ---------------------------------------------------------------------------
@fuzzed()
@given(file_name=TEXT, reason=TEXT, stage=st.sampled_from(["parse", "submit"]))
def test_paper_announcements_and_refusals_decode(tmp_path_factory: pytest.TempPathFactory, file_name: str,
                                                 reason: str, stage: str) -> None:
    from scicustom.adapters.filesystem_store import FilesystemObjectStore
    from scicustom.app.papers.paper_records import PaperKeys
    from scicustom.workers.topics import Topics

    store = FilesystemObjectStore(tmp_path_factory.getbasetemp() / "announce")
    bus, topics, paper_id = InMemoryEventBus(), Topics("t"), "0" * 32
    store.put_bytes(PaperKeys(paper_id).source, b"# t\n\nx")
    PaperSubmittedPublisher(store, bus, topics)(paper_id, file_name)
    RefusedPaperDeadLetters(bus, topics)(paper_id, stage, reason)
    (announced,) = bus.consumer("a", [topics.of(PAPER_SUBMITTED)]).poll(max_records=5, timeout_s=0.1)
    event = decode(announced)
    assert (event.batch_id, event.paper.file_name) == (paper_id, file_name)
    (refused,) = bus.consumer("b", [topics.dead_letters(stage)]).poll(max_records=5, timeout_s=0.1)
    letter = ev.DeadLetter.FromString(refused.value)
    assert letter.stage == stage and letter.error == reason[:2000]


# -- the stage handlers behind the worker loop -----------------------------------------------------
@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[EventWorld]:
    yield event_world(tmp_path_factory.mktemp("events"))


def _hints(world: EventWorld) -> dict[str, st.SearchStrategy[Any]]:
    return {"schema_version": st.just(SCHEMA_VERSION), **{k: st.sampled_from(v) for k, v in world.ids.items()}}


@st.composite
def _mutated(draw: st.DrawFn, world: EventWorld, stage: str) -> bytes:
    """A record the stage really consumed, with fields overwritten by arbitrary ones or its bytes damaged."""
    real = draw(st.sampled_from(world.consumed[stage])).value
    how = draw(st.sampled_from(["merge", "flip", "cut"]))
    if how == "cut":
        return real[:draw(st.integers(0, max(0, len(real) - 1)))]
    if how == "flip":
        at = draw(st.integers(0, len(real) - 1))
        return real[:at] + bytes([real[at] ^ draw(st.integers(1, 255))]) + real[at + 1:]
    envelope = ev.Envelope.FromString(real)
    envelope.MergeFrom(draw(messages(ev.Envelope.DESCRIPTOR, _hints(world))))
    return envelope.SerializeToString()


def _values(world: EventWorld, stage: str) -> st.SearchStrategy[bytes]:
    return st.one_of(
        st.binary(max_size=256),
        messages(ev.Envelope.DESCRIPTOR, _hints(world)).map(lambda m: m.SerializeToString()),
        _mutated(world, stage),
        st.sampled_from(world.consumed[stage]).map(lambda m: m.value),  # a redelivery
    )


def _new_records(world: EventWorld, topic: str) -> list[BusMessage]:
    """What reached `topic` since the last look (one reader per topic for the whole module)."""
    reader = world.readers.get(topic)
    if reader is None:
        reader = world.readers[topic] = world.ctx.event_bus.consumer(f"fuzz-reader-{topic}", [topic])
    out: list[BusMessage] = []
    while batch := reader.poll(max_records=1000, timeout_s=0):
        out.extend(batch)
    return out


def _no_output_without_manifest(world: EventWorld) -> None:
    keys = world.ctx.store.list_keys(BUILDS_PREFIX)
    outputs = {k.split("/")[1] for k in keys if "/output/" in k}
    manifests = {k.split("/")[1] for k in keys if k.endswith("/output/manifest.json")}
    assert outputs <= manifests, f"output without a manifest: {sorted(outputs - manifests)}"


@pytest.mark.parametrize("stage", STAGES)
@fuzzed()
@given(data=st.data())
def test_every_record_ends_handled_or_as_one_dead_letter(world: EventWorld, stage: str, data: st.DataObject) -> None:
    value = data.draw(_values(world, stage), label="value")
    key = data.draw(st.one_of(st.none(), st.sampled_from(world.ids["build_id"] + world.ids["batch_id"]), TEXT),
                    label="key")
    headers = data.draw(HEADERS, label="headers")
    record = _message(world.topics.consumed_by(stage), value, key, headers)
    worker = StageWorker(world.ctx.event_bus, world.topics, world.handlers[stage],
                         WorkerOptions(max_attempts=2, backoff_s=0.0, breaker_threshold=10**9), sleep=lambda s: None)
    before = world.snapshot()
    dead_letters, failed = world.topics.dead_letters(stage), world.topics.of(BUILD_FAILED)
    _new_records(world, dead_letters), _new_records(world, failed)
    worker.process(record)  # must not raise: the loop would die with it
    outcome = (worker.stats.handled, worker.stats.dead_lettered)
    assert outcome in ((1, 0), (0, 1)), outcome
    letters = _new_records(world, dead_letters)
    assert len(letters) == worker.stats.dead_lettered
    if letters:
        letter = ev.DeadLetter.FromString(letters[0].value)
        assert letter.value == value and letter.stage == stage and letter.error
    assert world.snapshot() == before
    _no_output_without_manifest(world)
    assert not [m for m in _new_records(world, failed) if m.key == world.build_id], \
        "build.failed announced for a build that succeeded"


# -- found by this fuzzing: each input as a plain test -------------------------------------------------
@pytest.mark.parametrize("value", [b"\xff\xfe not json", b"[1, 2]", b"[" * 100_000, b'{"id": ' + b"9" * 5000 + b"}"])
def test_found_a_json_record_that_is_no_event_is_undecodable(value: bytes) -> None:
    # UnicodeDecodeError, a list payload, RecursionError and ValueError escaped and stopped the subscription.
    with pytest.raises(UndecodableEvent):
        decode_event(_message("t.json", value, None, {}))


def _damaged(world: EventWorld, stage: str) -> bytes:
    envelope = ev.Envelope.FromString(world.consumed[stage][0].value)
    ref = envelope.paper.artifact if envelope.WhichOneof("body") == "paper" else (
        envelope.items_batch.items if envelope.WhichOneof("body") == "items_batch" else None)
    if ref is None:
        getattr(envelope, envelope.WhichOneof("body")).Clear()
    else:
        ref.sha256 = "0" * 64  # the bytes no longer match: PoisonEvent, dead letter
    return envelope.SerializeToString()


@pytest.mark.parametrize("stage", ["parse", "extract-qa", "extract-hypotheses", "tag", "index", "vote", "complete"])
def test_found_a_damaged_copy_of_a_done_stages_event_fails_nothing(world: EventWorld, stage: str) -> None:
    # The paper stages marked an extracted paper FAILED; the build stages announced build.failed for a
    # build that had succeeded.
    before = world.snapshot()
    failed = world.topics.of(BUILD_FAILED)
    _new_records(world, failed)
    worker = StageWorker(world.ctx.event_bus, world.topics, world.handlers[stage],
                         WorkerOptions(max_attempts=1, backoff_s=0.0), sleep=lambda s: None)
    worker.process(_message(world.topics.consumed_by(stage), _damaged(world, stage), None, {}))
    assert worker.stats.dead_lettered == 1
    assert world.snapshot() == before
    assert not _new_records(world, failed)
