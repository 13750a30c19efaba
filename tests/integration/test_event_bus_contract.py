"""EventBus contract on the in-process bus and on kafka-python against the tansu broker."""

from __future__ import annotations

import uuid

import pytest

from scicustom.adapters.kafka_bus import KafkaEventBus
from scicustom.adapters.memory_bus import InMemoryEventBus
from tests.support.contracts.event_bus import EventBusContract, drain

pytestmark = pytest.mark.integration


@pytest.fixture
def names():
    run = uuid.uuid4().hex[:8]
    return lambda kind: f"{kind}-{run}-{uuid.uuid4().hex[:6]}"


class TestEventBusContract(EventBusContract):
    @pytest.fixture(params=["memory", "kafka"])
    def bus(self, request):
        if request.param == "memory":
            bus = InMemoryEventBus()
        else:
            bus = KafkaEventBus(request.getfixturevalue("kafka_server").bootstrap)
        yield bus
        bus.close()


def test_ensure_topic_keeps_an_existing_topics_partitions(kafka_server, names):
    topic = names("topic")
    creator = KafkaEventBus(kafka_server.bootstrap)
    creator.ensure_topic(topic, 3)
    other = KafkaEventBus(kafka_server.bootstrap)  # knows nothing of the topic: asks the broker again
    other.ensure_topic(topic, 1)
    for i in range(30):
        other.send(topic, f"m{i}".encode(), key=f"k{i}")
    other.flush()
    consumer = other.consumer(names("group"), [topic])
    assert {m.partition for m in drain(consumer, 30)} == {0, 1, 2}
    consumer.close()
    creator.close()
    other.close()
