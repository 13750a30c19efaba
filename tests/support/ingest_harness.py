"""The ingestion pipeline against real servers, in one process: a cluster-profile Context on
S3 + Kafka + the Elasticsearch API, the zero-shot tagger calibrated on the items at hand, and the
tag and index StageWorkers in threads until the batches come out indexed.

Used by tests/integration/test_ingest_pipeline.py and benchmarks/bench_ingest.py.
"""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from scicustom.bootstrap import Context
from scicustom.config import Settings
from scicustom.core.corpus_item import CorpusItem
from scicustom.core.units import UnitCatalog
from scicustom.core.zero_shot_tagger import (
    NON_SCIENCE_SUBJECTS,
    SCIENCE_SUBJECTS,
    ZeroShotParams,
    ZeroShotTagger,
    calibrate_threshold,
)
from scicustom.devstack.real_servers import ElasticsearchServer, KafkaServer, S3Server
from scicustom.events.v1 import events_pb2 as ev
from scicustom.ingest.worker import IngestStageHandler
from scicustom.ports import Embedder, EventBus
from scicustom.workers.stage_consumer import StageWorker, WorkerOptions
from scicustom.workers.topics import INGEST_STAGES, ITEMS_IMPORTED, ITEMS_INDEXED, ITEMS_TAGGED, Topics

REPO = Path(__file__).resolve().parents[2]
CACHES = {"wheel_cache_dir": REPO / ".scicustom/cache/wheels", "model_cache_dir": REPO / ".scicustom/cache/models"}


def cluster_context(s3: S3Server, kafka: KafkaServer, es: ElasticsearchServer, home: Path, name: str) -> Context:
    """A cluster-profile Context of its own: bucket, index and topic prefix all named `name`."""
    return Context(Settings(profile="cluster", home=home, s3_endpoint=s3.endpoint, s3_access_key=s3.access_key,
                            s3_secret_key=s3.secret_key, s3_bucket=name, kafka_bootstrap=kafka.bootstrap,
                            elasticsearch_url=es.url, elasticsearch_index=name, topic_prefix=name,
                            **CACHES))  # type: ignore[arg-type]


def ensure_ingest_topics(bus: EventBus, topics: Topics, partitions: int = 2) -> None:
    for event_type in (ITEMS_IMPORTED, ITEMS_TAGGED, ITEMS_INDEXED):
        bus.ensure_topic(topics.of(event_type), partitions)
    for stage in INGEST_STAGES:
        bus.ensure_topic(topics.dead_letters(stage), 1)


def calibrated_zero_shot(embedder: Embedder, catalog: UnitCatalog, items: Sequence[CorpusItem]) -> ZeroShotTagger:
    """The zero-shot tagger with its threshold calibrated as `corpus tag` does, on the MMLU items given."""
    rows = [it for it in items if it.source == "mmlu" and it.subject in SCIENCE_SUBJECTS | NON_SCIENCE_SUBJECTS]
    probe = ZeroShotTagger(embedder, catalog, ZeroShotParams(threshold=0.0))
    best = probe.similarity(embedder.encode([it.text for it in rows])).max(axis=1)
    threshold = calibrate_threshold(best, np.array([it.subject in SCIENCE_SUBJECTS for it in rows]))
    return ZeroShotTagger(embedder, catalog, ZeroShotParams(threshold=threshold))


def read_values(bus: EventBus, topic: str, wanted: int, timeout_s: float) -> list[bytes]:
    """The first `wanted` record values on `topic`, read by a fresh consumer group (fewer when time runs out)."""
    consumer = bus.consumer(f"reader-{uuid.uuid4().hex[:8]}", [topic])
    out: list[bytes] = []
    deadline = time.monotonic() + timeout_s
    try:
        while len(out) < wanted and time.monotonic() < deadline:
            out.extend(record.value for record in consumer.poll(max_records=100, timeout_s=0.5))
    finally:
        consumer.close()
    return out


def read_envelopes(bus: EventBus, topic: str, wanted: int, timeout_s: float) -> list[ev.Envelope]:
    out = []
    for value in read_values(bus, topic, wanted, timeout_s):
        message = ev.Envelope()
        message.ParseFromString(value)
        out.append(message)
    return out


class IngestWorkers:
    """The tag and index stages (`copies` consumers each) as threads on the context's bus."""

    def __init__(self, ctx: Context, topics: Topics, copies: int = 1) -> None:
        options = WorkerOptions(max_attempts=2, backoff_s=0.1, poll_timeout_s=0.2)
        self.workers = [StageWorker(ctx.event_bus, topics, IngestStageHandler(stage, ctx, topics), options)
                        for stage in INGEST_STAGES for _ in range(copies)]
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=w.run, args=(self._stop,), name=f"ingest-{w.stage}")
                         for w in self.workers]

    def __enter__(self) -> IngestWorkers:
        for thread in self._threads:
            thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        for thread in self._threads:
            thread.join()
