"""KafkaEventBus.flush: a producer that could not deliver is closed and the next send opens a new one.
A restarted broker forgets the idempotent producer's id and kafka-python retries UnknownProducerId
forever, so keeping the producer would hang every later publish (the broker-restart chaos run)."""

from __future__ import annotations

from typing import Any, ClassVar

import pytest
from kafka.errors import KafkaTimeoutError

from scicustom.adapters import kafka_bus
from scicustom.adapters.kafka_bus import KafkaEventBus


class _Future:
    def get(self, timeout: float | None = None) -> None:
        return None


class _Producer:
    made: ClassVar[list[_Producer]] = []

    def __init__(self, **config: Any) -> None:
        self.wedged = len(_Producer.made) == 0  # the first one lost its id to a broker restart
        self.closed_with: float | None = None
        self.sent: list[str] = []
        _Producer.made.append(self)

    def send(self, topic: str, **record: Any) -> _Future:
        self.sent.append(topic)
        return _Future()

    def flush(self, timeout: float | None = None) -> None:
        if self.wedged:
            raise KafkaTimeoutError(f"Failed to flush buffered records within {timeout} secs")

    def close(self, timeout: float | None = None) -> None:
        self.closed_with = timeout


@pytest.fixture
def bus(monkeypatch: pytest.MonkeyPatch) -> KafkaEventBus:
    _Producer.made = []
    monkeypatch.setattr(kafka_bus, "KafkaProducer", _Producer)
    bus = KafkaEventBus("127.0.0.1:1", flush_timeout_s=0.5)
    monkeypatch.setattr(bus, "ensure_topic", lambda topic, partitions=1: None)  # no admin client, no broker
    return bus


def test_a_producer_that_failed_to_deliver_is_replaced_and_the_retry_goes_out(bus: KafkaEventBus) -> None:
    bus.send("t.stage-done", b"{}")
    with pytest.raises(KafkaTimeoutError):
        bus.flush()
    first = _Producer.made[0]
    assert first.closed_with == 0  # closed at once, its stuck batches abandoned
    bus.send("t.stage-done", b"{}")  # the stage worker repeats its attempt
    bus.flush()
    assert len(_Producer.made) == 2 and _Producer.made[1].sent == ["t.stage-done"]


def test_a_healthy_producer_is_kept(bus: KafkaEventBus) -> None:
    _Producer.made = [object()]  # type: ignore[list-item]  # the next one made is not wedged
    for _ in range(3):
        bus.send("t.x", b"{}")
        bus.flush()
    assert len(_Producer.made) == 2 and _Producer.made[1].closed_with is None
