"""The in-process EventBus: a partitioned log with consumer groups, the semantics of Kafka in memory.

Topics keep every record (no retention limit: a process's lifetime of events). A group's open
members share its partitions round-robin in join order; every join or leave starts a new
generation, and each member then resumes its partitions from the group's committed offsets, so
whatever a departed member polled without committing is delivered again. A commit made by a
member that has not polled since a rebalance is dropped, as Kafka rejects it; the records come
back. A keyed record goes to the partition chosen by a hash of its key (one key, one order).
"""

from __future__ import annotations

import itertools
import threading
import time
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from scicustom.adapters.bus_subscription import Subscription, dead_letters_via
from scicustom.adapters.event_json import encode_payload
from scicustom.core.partition_lanes import lane_keys
from scicustom.ports import BusMessage, Event

TopicPartition = tuple[str, int]


@dataclass
class _Group:
    members: list[InMemoryConsumer] = field(default_factory=list)
    generation: int = 0
    committed: dict[TopicPartition, int] = field(default_factory=dict)
    assignment: dict[int, list[TopicPartition]] = field(default_factory=dict)


def _partition_of(key: bytes, partitions: int) -> int:
    return zlib.crc32(key) % partitions


class InMemoryEventBus:
    def __init__(self, default_partitions: int = 1) -> None:
        if default_partitions < 1:
            raise ValueError("default_partitions must be >= 1")
        self.default_partitions = default_partitions
        self._cond = threading.Condition()
        self._topics: dict[str, list[list[BusMessage]]] = {}
        self._groups: dict[str, _Group] = {}
        self._keyless = itertools.count()
        self._member_ids = itertools.count()
        self.subscriptions: list[Subscription] = []

    # producing ------------------------------------------------------------------------------------
    def ensure_topic(self, topic: str, partitions: int = 1) -> None:
        if partitions < 1:
            raise ValueError("partitions must be >= 1")
        with self._cond:
            self._create(topic, partitions)

    def _create(self, topic: str, partitions: int) -> list[list[BusMessage]]:
        if not topic:
            raise ValueError("empty topic name")
        logs = self._topics.get(topic)
        if logs is None:
            logs = self._topics[topic] = [[] for _ in range(partitions)]
            for group in self._groups.values():  # members waiting for this topic get its partitions
                if any(topic in m.topics for m in group.members):
                    self._rebalance(group)
        return logs

    def partition_keys(self, topic: str) -> list[str]:
        with self._cond:
            partitions = len(self._create(topic, self.default_partitions))
        return lane_keys(partitions, lambda key: _partition_of(key, partitions))

    def send(self, topic: str, value: bytes, *, key: str | None = None,
             headers: Mapping[str, str] | None = None) -> None:
        with self._cond:
            logs = self._create(topic, self.default_partitions)
            # Keyed: a stable hash, so one key keeps one partition and order; keyless: round robin.
            partition = next(self._keyless) % len(logs) if key is None else _partition_of(key.encode(), len(logs))
            log = logs[partition]
            log.append(BusMessage(topic, partition, len(log), key, bytes(value), dict(headers or {})))
            self._cond.notify_all()

    def publish(self, event: Event) -> None:
        self.send(event.topic, encode_payload(event), key=event.key, headers=event.headers)

    def flush(self) -> None:
        """Nothing to wait for: a sent record is in the log when `send` returns."""

    # consuming ------------------------------------------------------------------------------------
    def consumer(self, group: str, topics: Sequence[str]) -> InMemoryConsumer:
        if not group or not topics:
            raise ValueError("a consumer needs a group and at least one topic")
        with self._cond:
            for topic in topics:
                self._create(topic, self.default_partitions)
            member = InMemoryConsumer(self, group, next(self._member_ids), tuple(topics))
            state = self._groups.setdefault(group, _Group())
            state.members.append(member)
            self._rebalance(state)
            return member

    def subscribe(self, topic: str, handler: Callable[[Event], None], *, group: str | None = None) -> None:
        """Calls `handler` for every event on `topic` in a daemon thread, at least once.

        Without a group the subscription gets a group of its own and starts at the earliest record.
        """
        name = group or f"subscription-{next(self._member_ids)}-{topic}"
        self.subscriptions.append(Subscription(self.consumer(name, [topic]), handler, name,
                                               dead_letters=dead_letters_via(self.send)))

    def close(self) -> None:
        for subscription in self.subscriptions:
            subscription.stop()
        self.subscriptions.clear()

    # group coordination (called with the lock held) -----------------------------------------------
    def _rebalance(self, group: _Group) -> None:
        group.generation += 1
        group.assignment = {m.member_id: [] for m in group.members}
        for topic in sorted({t for m in group.members for t in m.topics}):
            readers = [m for m in group.members if topic in m.topics]
            for partition in range(len(self._topics.get(topic, ()))):
                group.assignment[readers[partition % len(readers)].member_id].append((topic, partition))
        self._cond.notify_all()

    def _leave(self, member: InMemoryConsumer) -> None:
        group = self._groups[member.group]
        group.members.remove(member)
        self._rebalance(group)


class InMemoryConsumer:
    def __init__(self, bus: InMemoryEventBus, group: str, member_id: int, topics: tuple[str, ...]) -> None:
        self._bus = bus
        self.group = group
        self.member_id = member_id
        self.topics = topics
        self._generation = -1
        self._positions: dict[TopicPartition, int] = {}
        self._rotation = 0
        self._closed = False

    def _sync(self, state: _Group) -> None:
        if self._generation != state.generation:
            self._generation = state.generation
            self._positions = {tp: state.committed.get(tp, 0) for tp in state.assignment[self.member_id]}

    def poll(self, max_records: int = 100, timeout_s: float = 1.0) -> list[BusMessage]:
        if max_records < 1:
            raise ValueError("max_records must be >= 1")
        deadline = time.monotonic() + max(timeout_s, 0.0)
        bus = self._bus
        with bus._cond:
            while True:
                if self._closed:
                    raise RuntimeError("poll on a closed consumer")
                self._sync(bus._groups[self.group])
                batch = self._take(max_records)
                remaining = deadline - time.monotonic()
                if batch or remaining <= 0:
                    return batch
                bus._cond.wait(remaining)

    def _take(self, max_records: int) -> list[BusMessage]:
        owned = list(self._positions)
        if not owned:
            return []
        self._rotation = (self._rotation + 1) % len(owned)  # no partition starves the others
        batch: list[BusMessage] = []
        for tp in owned[self._rotation:] + owned[:self._rotation]:
            log = self._bus._topics[tp[0]][tp[1]]
            start = self._positions[tp]
            chunk = log[start:start + max_records - len(batch)]
            batch.extend(chunk)
            self._positions[tp] = start + len(chunk)
            if len(batch) == max_records:
                break
        return batch

    def lag(self) -> dict[tuple[str, int], int]:
        """Records between this member's position and the end of each partition it owns."""
        with self._bus._cond:
            return {tp: len(self._bus._topics[tp[0]][tp[1]]) - position for tp, position in self._positions.items()}

    def commit(self) -> None:
        self._bus.flush()
        with self._bus._cond:
            if self._closed:
                raise RuntimeError("commit on a closed consumer")
            state = self._bus._groups[self.group]
            if self._generation == state.generation:
                state.committed.update(self._positions)

    def close(self) -> None:
        with self._bus._cond:
            if not self._closed:
                self._closed = True
                self._bus._leave(self)
