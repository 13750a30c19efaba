"""The EventBus contract: what an at-least-once worker relies on.

A test class inherits it and provides `bus` (an open bus, closed by the fixture) and `names` (a
callable giving a fresh topic or group name, so tests share one broker without seeing each other).
Waits are bounded liveness deadlines, never speed assertions: a Kafka group join takes
session_timeout/2 on tansu. "Nothing else arrived" is checked with a sentinel record sent last.
"""

from __future__ import annotations

import threading
import time

import pytest

from scicustom.ports import BusMessage, Event

DEADLINE_S = 60.0
TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"


def drain(consumer, count: int, *, max_records: int = 100, commit: bool = False) -> list[BusMessage]:
    """Poll until `count` records arrived (or the deadline passed, then fail)."""
    got: list[BusMessage] = []
    deadline = time.monotonic() + DEADLINE_S
    while len(got) < count and time.monotonic() < deadline:
        batch = consumer.poll(max_records, 0.5)
        assert len(batch) <= max_records
        got.extend(batch)
        if batch and commit:
            consumer.commit()
    assert len(got) >= count, f"only {len(got)} of {count} records arrived"
    return got


def drain_until(consumer, sentinel: bytes) -> list[BusMessage]:
    """Every record up to and including the one whose value is `sentinel`."""
    got: list[BusMessage] = []
    deadline = time.monotonic() + DEADLINE_S
    while not any(m.value == sentinel for m in got) and time.monotonic() < deadline:
        got.extend(consumer.poll(100, 0.5))
    assert any(m.value == sentinel for m in got), "the sentinel never arrived"
    return got


def wait_until(condition, what: str) -> None:
    deadline = time.monotonic() + DEADLINE_S
    while not condition() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert condition(), what


def values(messages: list[BusMessage]) -> list[bytes]:
    return [m.value for m in messages]


class GroupMember:
    """One consumer in its own thread, as a worker process runs it: poll, then commit each batch."""

    def __init__(self, consumer) -> None:
        self.consumer = consumer
        self.committing = True
        self.received: set[bytes] = set()
        self.abandoned: set[bytes] = set()  # polled while not committing
        self.log: list[bytes] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            batch = self.consumer.poll(100, 0.3)
            self.log.extend(values(batch))
            self.received.update(values(batch))
            if batch and self.committing:
                self.consumer.commit()
            elif batch:
                self.abandoned.update(values(batch))
        self.consumer.close()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(DEADLINE_S)


class EventBusContract:
    def test_records_keep_key_value_headers_and_offsets(self, bus, names):
        topic, group = names("topic"), names("group")
        bus.ensure_topic(topic, 1)
        bus.send(topic, b"\x00first", key="build-1", headers={"traceparent": TRACEPARENT, "event-type": "a"})
        bus.send(topic, b"second", key="build-1")
        bus.send(topic, b"", key=None)
        bus.flush()
        consumer = bus.consumer(group, [topic])
        got = drain(consumer, 3)
        assert [(m.topic, m.partition, m.key, m.value) for m in got] == [
            (topic, 0, "build-1", b"\x00first"), (topic, 0, "build-1", b"second"), (topic, 0, None, b"")]
        assert dict(got[0].headers) == {"traceparent": TRACEPARENT, "event-type": "a"}
        assert dict(got[1].headers) == {}
        assert got[0].offset < got[1].offset < got[2].offset
        consumer.close()

    def test_publish_encodes_the_event_and_subscribe_hands_it_back(self, bus, names):
        topic = names("topic")
        event = Event(topic=topic, key="build-7", payload={"stage": "voted", "units": ["ku_1", "ku_2"], "n": 3},
                      headers={"traceparent": TRACEPARENT})
        received: list[Event] = []
        arrived = threading.Event()

        def handler(e: Event) -> None:
            received.append(e)
            arrived.set()

        bus.subscribe(topic, handler)
        bus.publish(event)
        bus.flush()
        assert arrived.wait(DEADLINE_S)
        assert received == [event]

    def test_one_key_keeps_its_order_and_partition(self, bus, names):
        topic, group = names("topic"), names("group")
        bus.ensure_topic(topic, 4)
        sent = [(f"key-{i % 5}", f"{i:03d}".encode()) for i in range(40)]
        for key, value in sent:
            bus.send(topic, value, key=key)
        bus.flush()
        consumer = bus.consumer(group, [topic])
        got = drain(consumer, 40)
        assert sorted(values(got)) == sorted(v for _, v in sent)
        for i in range(5):
            mine = [m for m in got if m.key == f"key-{i}"]
            assert values(mine) == [v for k, v in sent if k == f"key-{i}"]
            assert len({m.partition for m in mine}) == 1
        assert {m.partition for m in got} <= {0, 1, 2, 3}
        consumer.close()

    def test_each_partition_key_lands_on_its_own_partition(self, bus, names):
        topic, group = names("topic"), names("group")
        bus.ensure_topic(topic, 5)
        keys = bus.partition_keys(topic)
        assert len(keys) == len(set(keys)) == 5
        for i, key in enumerate(keys * 2):
            bus.send(topic, f"{i}".encode(), key=key)
        bus.flush()
        consumer = bus.consumer(group, [topic])
        got = drain(consumer, 10)
        assert sorted((m.partition, m.key) for m in got) == sorted((i % 5, k) for i, k in enumerate(keys * 2))
        consumer.close()

    def test_uncommitted_records_go_back_to_the_group_after_close(self, bus, names):
        topic, group = names("topic"), names("group")
        bus.ensure_topic(topic, 2)
        for i in range(6):
            bus.send(topic, f"m{i}".encode(), key=f"k{i}")
        bus.flush()
        first = bus.consumer(group, [topic])
        polled = drain(first, 6)
        first.close()  # crashed mid-batch: nothing committed
        second = bus.consumer(group, [topic])
        again = drain(second, 6)
        assert sorted((m.partition, m.offset, m.value) for m in again) == sorted(
            (m.partition, m.offset, m.value) for m in polled)
        second.close()

    def test_committed_records_are_not_delivered_again(self, bus, names):
        topic, group = names("topic"), names("group")
        bus.ensure_topic(topic, 1)
        for i in range(4):
            bus.send(topic, f"old{i}".encode(), key="k")
        bus.flush()
        first = bus.consumer(group, [topic])
        drain(first, 4)
        first.commit()
        first.close()
        for value in (b"new0", b"new1", b"sentinel"):
            bus.send(topic, value, key="k")
        bus.flush()
        second = bus.consumer(group, [topic])
        assert values(drain_until(second, b"sentinel")) == [b"new0", b"new1", b"sentinel"]
        second.close()

    def test_a_partial_commit_redelivers_exactly_the_rest(self, bus, names):
        topic, group = names("topic"), names("group")
        bus.ensure_topic(topic, 1)
        for i in range(6):
            bus.send(topic, f"m{i}".encode(), key="k")
        bus.send(topic, b"sentinel", key="k")
        bus.flush()
        first = bus.consumer(group, [topic])
        handled = drain(first, 1, max_records=2)
        first.commit()
        first.close()
        second = bus.consumer(group, [topic])
        rest = drain_until(second, b"sentinel")
        assert values(handled) + values(rest) == [f"m{i}".encode() for i in range(6)] + [b"sentinel"]
        second.close()

    def test_poll_returns_at_most_max_records(self, bus, names):
        topic, group = names("topic"), names("group")
        bus.ensure_topic(topic, 1)
        for i in range(10):
            bus.send(topic, f"m{i}".encode(), key="k")
        bus.flush()
        consumer = bus.consumer(group, [topic])
        got = drain(consumer, 10, max_records=3)
        assert values(got) == [f"m{i}".encode() for i in range(10)]
        with pytest.raises(ValueError):
            consumer.poll(0, 0.0)
        consumer.close()

    def test_every_group_gets_every_record(self, bus, names):
        topic = names("topic")
        bus.ensure_topic(topic, 2)
        for i in range(8):
            bus.send(topic, f"m{i}".encode(), key=f"k{i}")
        bus.flush()
        one, two = bus.consumer(names("group"), [topic]), bus.consumer(names("group"), [topic])
        expected = sorted(f"m{i}".encode() for i in range(8))
        assert sorted(values(drain(one, 8))) == expected
        assert sorted(values(drain(two, 8))) == expected
        one.close()
        two.close()

    def test_group_members_share_partitions_and_a_leavers_work_moves_on(self, bus, names):
        topic, group = names("topic"), names("group")
        bus.ensure_topic(topic, 4)
        a, b = GroupMember(bus.consumer(group, [topic])), GroupMember(bus.consumer(group, [topic]))
        sent: set[bytes] = set()
        deadline = time.monotonic() + DEADLINE_S
        round_no = 0
        while not (a.received and b.received) and time.monotonic() < deadline:
            for i in range(16):  # 16 keys reach all 4 partitions with Kafka's and the in-process hash
                value = f"r{round_no}-{i}".encode()
                bus.send(topic, value, key=f"key-{i}")
                sent.add(value)
            bus.flush()
            time.sleep(0.2)
            round_no += 1
        assert a.received and b.received, "the two members never shared the topic"
        # `a` stops committing (a worker that dies mid-batch), then leaves: `b` gets a's work again.
        a.committing = False
        last = {f"last-{i}".encode() for i in range(16)}
        for i in range(16):
            bus.send(topic, f"last-{i}".encode(), key=f"key-{i}")
        bus.flush()
        wait_until(lambda: last <= a.received | b.received, "the last batch was not polled")
        assert a.abandoned, "a owned no partition"
        left_at = len(b.log)
        a.stop()
        wait_until(lambda: a.abandoned <= set(b.log[left_at:]), "a's uncommitted records never reached b")
        b.stop()
        assert sent | last <= a.received | b.received

    def test_topics_are_created_on_first_use(self, bus, names):
        topic, group = names("topic"), names("group")
        bus.send(topic, b"hello", key="k")
        bus.flush()
        consumer = bus.consumer(group, [topic])
        assert values(drain(consumer, 1)) == [b"hello"]
        consumer.close()

    def test_closed_consumer_refuses_to_poll(self, bus, names):
        consumer = bus.consumer(names("group"), [names("topic")])
        consumer.close()
        consumer.close()  # idempotent
        with pytest.raises(RuntimeError):
            consumer.poll(1, 0.0)
