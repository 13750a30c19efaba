"""Builds dealt out evenly over the partitions (issue 17, part 5): the build service gives each new
build the next lane key, and the stage workers keep a build's events on its lane to the end."""

from __future__ import annotations

import zlib
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scicustom.adapters.filesystem_store import FilesystemObjectStore
from scicustom.adapters.memory_bus import InMemoryEventBus
from scicustom.builds.servicer import BuildServicer
from scicustom.core.partition_lanes import lane_keys
from scicustom.events.v1 import events_pb2 as ev
from scicustom.workers.topics import BUILD_REQUESTED, Topics
from tests.unit.workers.conftest import StubContext, create_build, run_workers, terminal

PARTITIONS = 8


@given(st.integers(min_value=1, max_value=64))
def test_each_partition_gets_a_key_that_hashes_to_it(partitions):
    keys = lane_keys(partitions, lambda key: zlib.crc32(key) % partitions)
    assert len(keys) == len(set(keys)) == partitions
    assert [zlib.crc32(k.encode()) % partitions for k in keys] == list(range(partitions))


def test_a_hash_that_misses_a_partition_is_refused_not_looped_on():
    with pytest.raises(ValueError, match="no key found"):
        lane_keys(3, lambda key: 0)
    with pytest.raises(ValueError, match="gave 5"):
        lane_keys(3, lambda key: 5)


@pytest.fixture
def lanes_ctx(tmp_path: Path) -> StubContext:
    bus = InMemoryEventBus(default_partitions=PARTITIONS)
    for topic in Topics("t").all():  # as `scicustom cluster init --partitions 8` makes them
        bus.ensure_topic(topic, PARTITIONS)
    return StubContext(FilesystemObjectStore(tmp_path / "store"), bus)


def _records(ctx: StubContext, topics: list[str]):
    consumer = ctx.event_bus.consumer("reader", topics)
    records = consumer.poll(max_records=10_000, timeout_s=0.1)
    consumer.close()
    return records


def test_builds_are_dealt_out_evenly_over_the_partitions(lanes_ctx):
    # Hashed by build id, 16 builds on 8 partitions are rarely 2 apiece; dealt out by one service, always.
    service = BuildServicer(lanes_ctx)
    for _ in range(2 * PARTITIONS):
        create_build(lanes_ctx, service=service)
    requested = _records(lanes_ctx, [Topics("t").of(BUILD_REQUESTED)])
    assert len(requested) == 2 * PARTITIONS
    assert Counter(r.partition for r in requested) == dict.fromkeys(range(PARTITIONS), 2)


def test_a_build_keeps_its_lane_to_the_end(lanes_ctx):
    service = BuildServicer(lanes_ctx)
    builds = [create_build(lanes_ctx, service=service).build_id for _ in range(3)]
    for build_id in builds:
        run_workers(lanes_ctx, terminal(lanes_ctx, build_id))
    by_build: dict[str, set[tuple[str | None, int]]] = {}
    for record in _records(lanes_ctx, Topics("t").all()):
        event = ev.Envelope.FromString(record.value)
        by_build.setdefault(event.build_id, set()).add((record.key, record.partition))
    assert sorted(by_build) == sorted(builds)
    lanes = [by_build[b] for b in builds]
    assert all(len(lane) == 1 for lane in lanes), lanes  # one key, one partition index, on every topic
    assert len({next(iter(lane))[1] for lane in lanes}) == 3  # and three builds, three partitions
