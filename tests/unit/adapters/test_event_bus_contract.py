"""EventBus contract on the in-process bus (the integration suite adds Kafka on tansu), and the
in-process bus's own group bookkeeping."""

from __future__ import annotations

import itertools
import threading

import pytest

from scicustom.adapters.memory_bus import InMemoryEventBus
from scicustom.ports import Event
from tests.support.contracts.event_bus import DEADLINE_S, EventBusContract, drain, values


@pytest.fixture
def names():
    counter = itertools.count()
    return lambda kind: f"{kind}-{next(counter)}"


class TestInMemoryEventBus(EventBusContract):
    @pytest.fixture
    def bus(self):
        bus = InMemoryEventBus()
        yield bus
        bus.close()


def test_partitions_are_dealt_round_robin_in_join_order():
    bus = InMemoryEventBus()
    bus.ensure_topic("t", 3)
    for i in range(30):
        bus.send("t", str(i).encode(), key=f"k{i}")
    a = bus.consumer("g", ["t"])
    b = bus.consumer("g", ["t"])
    got_a = {m.partition for m in a.poll(100, 0.0)}
    got_b = {m.partition for m in b.poll(100, 0.0)}
    assert (got_a, got_b) == ({0, 2}, {1})


def test_a_commit_after_a_rebalance_is_dropped_and_the_records_return():
    bus = InMemoryEventBus()
    for i in range(3):
        bus.send("t", f"m{i}".encode(), key="k")
    a = bus.consumer("g", ["t"])
    assert values(a.poll(10, 0.0)) == [b"m0", b"m1", b"m2"]
    b = bus.consumer("g", ["t"])  # rebalance: the one partition stays with `a`, from the committed offset
    a.commit()  # stale generation: dropped, as Kafka rejects it
    assert values(a.poll(10, 0.0)) == [b"m0", b"m1", b"m2"]
    a.commit()
    a.close()
    assert b.poll(10, 0.0) == []


def test_poll_waits_for_a_record_sent_meanwhile():
    bus = InMemoryEventBus()
    consumer = bus.consumer("g", ["t"])
    timer = threading.Timer(0.05, lambda: bus.send("t", b"late", key="k"))
    timer.start()
    assert values(consumer.poll(10, DEADLINE_S)) == [b"late"]
    timer.join()


def test_a_failing_subscription_handler_stops_it_and_leaves_the_batch_uncommitted():
    bus = InMemoryEventBus()
    calls: list[Event] = []
    called = threading.Event()

    def handler(event: Event) -> None:
        calls.append(event)
        called.set()
        raise RuntimeError("boom")

    bus.subscribe("t", handler, group="workers")
    bus.publish(Event(topic="t", key="k", payload={"n": 1}))
    assert called.wait(DEADLINE_S)
    subscription = bus.subscriptions[0]
    subscription.stop()
    assert isinstance(subscription.error, RuntimeError)
    assert not subscription.running
    assert [e.payload for e in calls] == [{"n": 1}]
    retry = bus.consumer("workers", ["t"])
    assert [m.value for m in drain(retry, 1)] == [b'{"n":1}']
    bus.close()


@pytest.mark.parametrize("bad", [0, -1])
def test_partition_counts_must_be_positive(bad):
    with pytest.raises(ValueError):
        InMemoryEventBus(default_partitions=bad)
    with pytest.raises(ValueError):
        InMemoryEventBus().ensure_topic("t", bad)
