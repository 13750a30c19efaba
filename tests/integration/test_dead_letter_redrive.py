"""`dlq redrive` against the real Kafka server (tansu): a letter goes back to its topic, with its
headers and the redriven mark, and the redrive group's commit keeps it from going twice."""

from __future__ import annotations

from scicustom.adapters.kafka_bus import KafkaEventBus
from scicustom.events.v1 import events_pb2 as ev
from scicustom.workers.dead_letters import REDRIVEN_HEADER, list_dead_letters, redrive_dead_letters
from scicustom.workers.topics import Topics


def test_redrive_on_kafka(kafka_server, unique_name):
    topics = Topics(unique_name)
    bus = KafkaEventBus(kafka_server.bootstrap)
    try:
        source = topics.consumed_by("vote")
        letter = ev.DeadLetter(stage="vote", topic=source, partition=0, offset=7, value=b"event-bytes",
                               headers={"scicustom-event-id": "e1"}, error="PoisonEvent: broken", attempts=1)
        bus.send(topics.dead_letters("vote"), letter.SerializeToString(), key="b1",
                 headers={"scicustom-event-id": "e1"})
        bus.flush()
        (listed,) = list_dead_letters(bus, topics, "vote", limit=10, wait_s=5.0)
        assert (listed.topic, listed.offset, listed.error) == (source, 7, "PoisonEvent: broken")
        result = redrive_dead_letters(bus, topics, "vote", limit=10, wait_s=5.0)
        assert [d.offset for d in result.redriven] == [7]
        consumer = bus.consumer(f"{unique_name}-probe", [source])
        records = []
        for _ in range(20):
            records += consumer.poll(max_records=10, timeout_s=0.5)
            if records:
                break
        consumer.close()
        (record,) = records
        assert (record.key, record.value) == ("b1", b"event-bytes")
        assert record.headers == {"scicustom-event-id": "e1", REDRIVEN_HEADER: "1"}
        assert redrive_dead_letters(bus, topics, "vote", limit=10, wait_s=3.0).redriven == []  # committed
    finally:
        bus.close()
