"""The EventBus port on Kafka (kafka-python): idempotent producer with acks=all, consumer groups
with auto-commit off and explicit commits (at-least-once).

Topics are created on first use with the bus's default partition count unless `ensure_topic`
made them first. A commit first flushes the producer, so the events a handler published are on
the broker before the event that caused them counts as handled. A commit the group coordinator
rejects because a rebalance took the partitions away is dropped with a warning: the records go to
their new owner again, which is what at-least-once asks. So is a commit that misses its deadline
(`commit_timeout_s`) instead of raising out of the worker loop: the next commit covers its
offsets, and a rebalance before then redelivers them to idempotent handlers.
"""

from __future__ import annotations

import contextlib
import functools
import logging
import threading
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer
from kafka.admin import NewTopic
from kafka.errors import CommitFailedError, KafkaTimeoutError, RebalanceInProgressError, TopicAlreadyExistsError
from kafka.partitioner.default import murmur2

from scicustom.adapters.bus_subscription import Subscription, dead_letters_via
from scicustom.adapters.event_json import encode_payload
from scicustom.core.partition_lanes import lane_keys
from scicustom.ports import BusMessage, Event

log = logging.getLogger(__name__)


@functools.cache
def _murmur2_lanes(partitions: int) -> tuple[str, ...]:
    return tuple(lane_keys(partitions, lambda key: (murmur2(key) & 0x7FFFFFFF) % partitions))


def _force_close(producer: KafkaProducer) -> None:
    """Stops a producer whose records cannot be delivered, at once. KafkaProducer.close flushes first,
    and with records still pending that flush raises before the network thread is told to stop: the
    thread went on retrying for ever, one more per outage. So the thread (kafka-python's `_sender`,
    a private name of the pinned release; tests/integration/test_kafka_broker_restart.py checks it
    ends) is force-closed first, which fails the pending records, and close() then has nothing left
    to wait for."""
    sender = getattr(producer, "_sender", None)
    if sender is not None:
        sender.force_close()
        sender.join(timeout=5.0)
    producer.close(timeout=0)


class KafkaEventBus:
    def __init__(self, bootstrap: str, *, client_id: str = "scicustom", default_partitions: int = 1,
                 session_timeout_ms: int = 6000, flush_timeout_s: float = 60.0, commit_timeout_s: float = 30.0,
                 security: Mapping[str, str] | None = None, replication_factor: int = 1,
                 max_poll_interval_ms: int = 900_000) -> None:
        self.bootstrap = bootstrap
        # security_protocol, sasl_mechanism, sasl_plain_username/password, ssl_cafile (kafka-python names)
        self.security = dict(security or {})
        self.client_id = client_id
        self.default_partitions = default_partitions
        self.session_timeout_ms = session_timeout_ms
        self.replication_factor = replication_factor
        self.max_poll_interval_ms = max_poll_interval_ms
        self.flush_timeout_s = flush_timeout_s
        self.commit_timeout_s = commit_timeout_s
        self._lock = threading.Lock()
        self._producer: KafkaProducer | None = None
        self._admin: KafkaAdminClient | None = None
        self._known_topics: set[str] = set()
        self._pending: list[Any] = []  # send futures since the last flush
        self.subscriptions: list[Subscription] = []

    # producing ------------------------------------------------------------------------------------
    def _producer_client(self) -> KafkaProducer:
        if self._producer is None:
            self._producer = KafkaProducer(bootstrap_servers=self.bootstrap, client_id=self.client_id,
                                           acks="all", linger_ms=5, **self.security)
        return self._producer

    def ensure_topic(self, topic: str, partitions: int = 1) -> None:
        if partitions < 1:
            raise ValueError("partitions must be >= 1")
        if not topic:
            raise ValueError("empty topic name")
        with self._lock:
            if topic in self._known_topics:
                return
            if self._admin is None:
                self._admin = KafkaAdminClient(bootstrap_servers=self.bootstrap, client_id=self.client_id,
                                               **self.security)
            with contextlib.suppress(TopicAlreadyExistsError):  # an existing topic keeps its partitions
                self._admin.create_topics([NewTopic(topic, num_partitions=partitions,
                                                     replication_factor=self.replication_factor)])
            self._known_topics.add(topic)

    def partition_keys(self, topic: str) -> list[str]:
        """Keys hashed as the producer's default partitioner (and Java's) hashes them: murmur2 of the
        key modulo the topic's partition count, read from the producer's cached cluster metadata (so a
        topic given more partitions gets more keys once the metadata refreshes)."""
        self.ensure_topic(topic, self.default_partitions)
        return list(_murmur2_lanes(len(self._producer_client().partitions_for(topic))))

    def send(self, topic: str, value: bytes, *, key: str | None = None,
             headers: Mapping[str, str] | None = None) -> None:
        self.ensure_topic(topic, self.default_partitions)
        future = self._producer_client().send(
            topic, value=bytes(value), key=None if key is None else key.encode(),
            headers=[(k, v.encode()) for k, v in (headers or {}).items()])
        with self._lock:
            self._pending.append(future)

    def publish(self, event: Event) -> None:
        self.send(event.topic, encode_payload(event), key=event.key, headers=event.headers)

    def flush(self) -> None:
        """Waits for every record sent so far; raises the first delivery error.

        A producer that failed to deliver is closed and the next send starts a fresh one. A restarted
        broker forgets the idempotent producer's id, and kafka-python then retries the batch with
        UnknownProducerId forever (it never asks for a new id), so every later send would hang too.
        The caller repeats its attempt (stage handlers are idempotent); the new producer gets a new id.
        """
        with self._lock:
            pending, self._pending = self._pending, []
            producer = self._producer
        if producer is None or not pending:
            return
        try:
            producer.flush(timeout=self.flush_timeout_s)
            for future in pending:
                future.get(timeout=self.flush_timeout_s)
        except Exception:
            self._discard_producer(producer)
            raise

    def _discard_producer(self, producer: KafkaProducer) -> None:
        with self._lock:
            if self._producer is producer:
                self._producer = None
        log.warning("kafka producer %s could not deliver; closing it, the next send opens a new one", self.client_id)
        with contextlib.suppress(Exception):  # closing a wedged producer must not hide the delivery error
            _force_close(producer)

    # consuming ------------------------------------------------------------------------------------
    def consumer(self, group: str, topics: Sequence[str]) -> KafkaBusConsumer:
        if not group or not topics:
            raise ValueError("a consumer needs a group and at least one topic")
        for topic in topics:
            self.ensure_topic(topic, self.default_partitions)
        client = KafkaConsumer(
            *topics, bootstrap_servers=self.bootstrap, client_id=self.client_id, group_id=group,
            enable_auto_commit=False, auto_offset_reset="earliest",
            session_timeout_ms=self.session_timeout_ms, heartbeat_interval_ms=max(self.session_timeout_ms // 3, 100),
            max_poll_interval_ms=self.max_poll_interval_ms,
            **self.security)
        return KafkaBusConsumer(self, client)

    def subscribe(self, topic: str, handler: Callable[[Event], None], *, group: str | None = None) -> None:
        """Calls `handler` for every event on `topic` in a daemon thread, at least once.

        Without a group the subscription gets a group of its own and starts at the earliest record.
        """
        name = group or f"subscription-{uuid.uuid4().hex[:12]}-{topic}"
        self.subscriptions.append(Subscription(self.consumer(name, [topic]), handler, name,
                                               dead_letters=dead_letters_via(self.send)))

    def close(self) -> None:
        for subscription in self.subscriptions:
            subscription.stop()
        self.subscriptions.clear()
        if self._producer is not None:
            self.flush()
            self._producer.close()
            self._producer = None
        if self._admin is not None:
            self._admin.close()
            self._admin = None


class KafkaBusConsumer:
    def __init__(self, bus: KafkaEventBus, client: KafkaConsumer) -> None:
        self._bus = bus
        self._client = client
        self._closed = False

    def poll(self, max_records: int = 100, timeout_s: float = 1.0) -> list[BusMessage]:
        if max_records < 1:
            raise ValueError("max_records must be >= 1")
        if self._closed:
            raise RuntimeError("poll on a closed consumer")
        records = self._client.poll(timeout_ms=int(max(timeout_s, 0.0) * 1000), max_records=max_records)
        return [
            BusMessage(topic=r.topic, partition=r.partition, offset=r.offset,
                       key=None if r.key is None else r.key.decode(), value=r.value or b"",
                       headers={k: (v or b"").decode() for k, v in (r.headers or [])})
            for batch in records.values() for r in batch
        ]

    def lag(self) -> dict[tuple[str, int], int]:
        """Records between this member's position and the high watermark of each owned partition,
        from what the last fetch reported: no broker round trip. A partition not fetched from yet
        has no known end and is left out."""
        lags: dict[tuple[str, int], int] = {}
        for tp in self._client.assignment():
            high = self._client.highwater(tp)
            position = None if high is None else self._client.position(tp, timeout_ms=0)
            if position is not None:
                lags[(tp.topic, tp.partition)] = max(int(high) - int(position), 0)
        return lags

    def commit(self) -> None:
        if self._closed:
            raise RuntimeError("commit on a closed consumer")
        self._bus.flush()
        try:
            self._client.commit(timeout_ms=int(self._bus.commit_timeout_s * 1000))
        except (CommitFailedError, RebalanceInProgressError) as exc:
            log.warning("commit dropped after a rebalance; the records will be delivered again: %s", exc)
        except KafkaTimeoutError as exc:
            log.warning("commit missed its %.0f s deadline; a later commit or a redelivery covers it: %s",
                        self._bus.commit_timeout_s, exc)

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._client.close(autocommit=False)
