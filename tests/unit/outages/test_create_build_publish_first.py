"""CreateBuild records its idempotency key only after build.requested is published, and two racing
calls with one key make one build."""

from __future__ import annotations

import threading

import pytest

from scicustom.app.build.build_records import BuildRecords, list_build_ids
from scicustom.events.v1 import events_pb2 as ev
from scicustom.workers.topics import Topics
from tests.unit.workers.conftest import create_build

REQUESTED = Topics("t").of("build.requested")


class FailingFlush:
    def __init__(self, bus, failures: int) -> None:
        self.bus, self.failures = bus, failures

    def partition_keys(self, topic: str) -> list[str]:
        return self.bus.partition_keys(topic)

    def send(self, *args, **kwargs):
        self.bus.send(*args, **kwargs)

    def flush(self) -> None:
        if self.failures:
            self.failures -= 1
            raise ConnectionError("broker unavailable")


def _requested(bus) -> list:
    consumer = bus.consumer("probe", [REQUESTED])
    try:
        return consumer.poll(max_records=100, timeout_s=0.05)
    finally:
        consumer.close()


def test_a_failed_flush_leaves_no_key_and_the_retry_publishes(ctx):
    bus = ctx.event_bus
    ctx.event_bus = FailingFlush(bus, failures=1)
    with pytest.raises(ConnectionError):
        create_build(ctx, request_id="key-1")
    assert not ctx.store.list_keys("build-requests/")  # nothing says the request was served
    build = create_build(ctx, request_id="key-1")        # the SDK's retry with the same key
    again = create_build(ctx, request_id="key-1")
    assert again.build_id == build.build_id and list_build_ids(ctx.store) == [build.build_id]
    assert {ev.Envelope.FromString(r.value).build_id for r in _requested(bus)} == {build.build_id}
    assert ctx.store.list_keys("build-requests/")


def test_a_failed_flush_without_a_key_withdraws_the_build(ctx):
    ctx.event_bus = FailingFlush(ctx.event_bus, failures=1)
    with pytest.raises(ConnectionError):
        create_build(ctx)
    assert list_build_ids(ctx.store) == []  # no QUEUED build whose build.requested never went out


def test_two_racing_calls_with_one_key_make_one_build(ctx):
    start = threading.Barrier(4)
    results: list[str] = []

    def call() -> None:
        start.wait()
        results.append(create_build(ctx, request_id="raced").build_id)

    threads = [threading.Thread(target=call) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(set(results)) == 1 and list_build_ids(ctx.store) == results[:1]
    events = _requested(ctx.event_bus)
    assert len({e.headers["scicustom-event-id"] for e in events}) == 1  # one event id, deduplicated downstream
    spec = BuildRecords(ctx.store, results[0]).read_json(BuildRecords(ctx.store, results[0]).spec_key)
    assert "created" not in spec  # equal bytes from every racer


def test_keyed_builds_list_newest_first_by_their_creation_marker(ctx):
    first = create_build(ctx, request_id="a").build_id
    second = create_build(ctx).build_id
    third = create_build(ctx, request_id="b").build_id
    assert list_build_ids(ctx.store) == [first, second, third]
    created = [create_build(ctx, request_id=key).created.ToDatetime() for key in ("a", "b")]
    assert created[0] < created[1]
