"""Stage-worker metrics on the in-process bus, scraped over HTTP: outcomes (ok, dead_letter),
processing time, retries and the consumer group's lag; and the Kafka consumer's lag arithmetic."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from types import SimpleNamespace

import pytest
from kafka import TopicPartition

from scicustom.adapters.kafka_bus import KafkaBusConsumer
from scicustom.adapters.memory_bus import InMemoryEventBus
from scicustom.events.v1 import events_pb2 as ev
from scicustom.telemetry.metrics import STAGE_BUCKETS, PlatformMetrics
from scicustom.telemetry.metrics_endpoint import MetricsEndpoint, start_metrics_endpoint
from scicustom.workers.envelopes import PoisonEvent, envelope, headers_for
from scicustom.workers.stage_consumer import EXIT_DRAINED, Outgoing, StageWorker, WorkerOptions
from scicustom.workers.topics import Topics

TOPICS = Topics("m")
CONSUMED = TOPICS.consumed_by("tag")
GROUP = TOPICS.group("tag")


class _Handler:
    """The `tag` stage; notes the group's lag as the metrics saw it when each record is handled."""

    stage = "tag"

    def __init__(self, metrics: PlatformMetrics) -> None:
        self.metrics = metrics
        self.lag_seen: list[float | None] = []
        self.calls: dict[str, int] = {}

    def handle(self, event: ev.Envelope) -> list[Outgoing]:
        source = event.items_batch.source
        self.calls[source] = self.calls.get(source, 0) + 1
        self.lag_seen.append(self.metrics.registry.get_sample_value(
            "scicustom_consumer_lag", {"topic": CONSUMED, "partition": "0", "group": GROUP}))
        if source.startswith("flaky") and self.calls[source] == 1:
            raise ConnectionError("tagger unavailable")
        if source.startswith("broken"):
            raise RuntimeError("always fails")
        if source.startswith("poison"):
            raise PoisonEvent("batch bytes do not match their hash")
        out = envelope("ingest.items-tagged", batch_id=event.batch_id, items_batch=event.items_batch)
        return [Outgoing(TOPICS.of("ingest.items-tagged"), event.batch_id, out)]

    def on_dead_letter(self, event: ev.Envelope, error: str) -> list[Outgoing]:
        return []


def _publish(bus: InMemoryEventBus, source: str, raw: bytes | None = None) -> None:
    message = envelope("ingest.items-imported", batch_id=source, items_batch=ev.ItemsBatch(source=source, count=1))
    # One key for all: one partition, so the lag counts down record by record.
    bus.send(CONSUMED, raw if raw is not None else message.SerializeToString(), key="k", headers=headers_for(message))


@pytest.fixture
def metrics() -> PlatformMetrics:
    return PlatformMetrics()


@pytest.fixture
def endpoint(metrics: PlatformMetrics) -> Iterator[MetricsEndpoint]:
    served = start_metrics_endpoint("127.0.0.1", 0, metrics)
    yield served
    served.stop()


def test_outcomes_times_retries_and_lag_of_a_stage(metrics, endpoint):
    from tests.unit.telemetry.prometheus_scrape import scrape

    bus = InMemoryEventBus()
    sources = ["ok-1", "flaky-1", "garbage", "broken-1", "poison-1", "ok-2"]
    for source in sources:
        _publish(bus, source, raw=b"\xff\x00 not a protobuf" if source == "garbage" else None)
    handler = _Handler(metrics)
    worker = StageWorker(bus, TOPICS, handler, WorkerOptions(max_attempts=2, backoff_s=0.0, poll_timeout_s=0.05,
                                                            breaker_threshold=10), metrics=metrics)
    stop = threading.Event()
    result: list[int] = []
    thread = threading.Thread(target=lambda: result.append(worker.run(stop)))
    thread.start()
    while thread.is_alive() and worker.stats.handled + worker.stats.dead_lettered < len(sources):
        thread.join(0.02)
    page = scrape(endpoint.url)  # while the worker still owns its partition
    stop.set()
    thread.join()
    assert result == [EXIT_DRAINED]

    messages = "scicustom_stage_messages_total"
    assert page.value(messages, stage="tag", outcome="ok") == 3  # ok-1, flaky-1 on its retry, ok-2
    assert page.value(messages, stage="tag", outcome="dead_letter") == 3  # garbage, broken-1, poison-1
    assert page.value("scicustom_stage_retries_total", stage="tag") == 2  # flaky-1 and broken-1 once each
    assert page.value("scicustom_stage_processing_seconds_count", stage="tag") == 6
    buckets = page.find("scicustom_stage_processing_seconds_bucket", stage="tag")
    assert [float(s.labels["le"]) for s in buckets] == [*STAGE_BUCKETS, float("inf")]
    assert buckets[-1].value == 6
    # Polled one at a time: when record k (from 1) is handled, 6 - k are behind it. The undecodable
    # record never reaches the handler; retried records are seen twice at the same lag.
    assert handler.lag_seen == [5, 4, 4, 2, 2, 1, 0]
    assert page.value("scicustom_consumer_lag", topic=CONSUMED, partition="0", group=GROUP) == 0
    # Once the worker leaves its group, its partitions are no longer its to report.
    assert metrics.registry.get_sample_value("scicustom_consumer_lag",
                                             {"topic": CONSUMED, "partition": "0", "group": GROUP}) is None


def test_processing_time_carries_the_consumer_span_as_exemplar(metrics, endpoint, monkeypatch, tracing):
    from opentelemetry import trace

    from tests.unit.telemetry.prometheus_scrape import scrape

    monkeypatch.setattr(trace, "get_tracer", lambda name, *a, tracer_provider=None, **k:
                        tracing.provider.get_tracer(name))
    bus = InMemoryEventBus()
    _publish(bus, "ok-1")
    worker = StageWorker(bus, TOPICS, _Handler(metrics), WorkerOptions(poll_timeout_s=0.05), metrics=metrics)
    consumer = bus.consumer(GROUP, [CONSUMED])
    (record,) = consumer.poll(timeout_s=1)
    worker.process(record)
    (span,) = [s for s in tracing.spans() if s.name == f"process {CONSUMED}"]
    page = scrape(endpoint.url, openmetrics=True)
    (bucket,) = [s for s in page.find("scicustom_stage_processing_seconds_bucket", stage="tag") if s.exemplar]
    assert bucket.exemplar.labels["trace_id"] == format(span.context.trace_id, "032x")


class _KafkaClient:
    """What KafkaBusConsumer.lag reads of a kafka-python consumer: assignment, highwater, position."""

    def __init__(self, highwater: dict[TopicPartition, int | None], position: dict[TopicPartition, int]) -> None:
        self._highwater = highwater
        self._position = position
        self.position_timeouts: list[int | None] = []

    def assignment(self) -> set[TopicPartition]:
        return set(self._highwater)

    def highwater(self, tp: TopicPartition) -> int | None:
        return self._highwater[tp]

    def position(self, tp: TopicPartition, timeout_ms: int | None = None) -> int:
        self.position_timeouts.append(timeout_ms)
        return self._position[tp]


def test_kafka_lag_is_highwater_minus_position_for_fetched_partitions():
    fetched, ahead, unfetched = TopicPartition("t", 0), TopicPartition("t", 1), TopicPartition("t", 2)
    client = _KafkaClient({fetched: 120, ahead: 7, unfetched: None}, {fetched: 100, ahead: 9, unfetched: 0})
    consumer = KafkaBusConsumer(SimpleNamespace(), client)
    assert consumer.lag() == {("t", 0): 20, ("t", 1): 0}  # no end known for partition 2: left out
    assert client.position_timeouts == [0, 0]  # never a blocking round trip to the coordinator
