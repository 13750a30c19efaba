"""A home for the ingestion pipeline: filesystem store, in-memory bus, embedded search index, the
hashing embedder, and a keyword tagger and a length-based perplexity that implement the ports."""

from __future__ import annotations

import json
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import pytest

from scicustom.adapters.embedded_search_index import EmbeddedSearchIndex
from scicustom.adapters.memory_bus import InMemoryEventBus
from scicustom.bootstrap import Context
from scicustom.config import Settings
from scicustom.events.v1 import events_pb2 as ev
from scicustom.ingest.worker import IngestStageHandler
from scicustom.ports import AnswerPerplexity, BusMessage, Tagger, UnitScore
from scicustom.workers.stage_consumer import StageWorker, WorkerOptions
from scicustom.workers.topics import INGEST_STAGES, Topics
from tests.support.hashing_embedder import HashingEmbedder

PREFIX = "t"
INDEX = "items-test"
UNITS = [("u1", "Virology"), ("u2", "Bone biology"), ("u3", "Enzymology"), ("ns", "Non-Scientific")]
# "quasar" stands for a tagger model that knows a unit the catalog lacks.
KEYWORDS = {"virus": ("u1", 0.9), "bone": ("u2", 0.8), "enzyme": ("u3", 0.7), "quasar": ("u-missing", 0.5)}


class KeywordTagger(Tagger):
    """Units by keyword, best first; an item with none is Non-Scientific alone (as both real taggers do)."""

    version = "keyword-tagger-v1"

    def __init__(self) -> None:
        self.calls = 0

    def tag(self, texts: Sequence[str], vectors: object = None) -> list[list[UnitScore]]:
        self.calls += 1
        out = []
        for text in texts:
            hits = sorted((score, unit) for word, (unit, score) in KEYWORDS.items() if word in text.lower())
            out.append([UnitScore(u, s) for s, u in reversed(hits)] or [UnitScore("ns", 0.6)])
        return out


class LengthPerplexity(AnswerPerplexity):
    """Hardness 1 + (answer length mod 7) / 2; NaN for a question that says 'unscorable'."""

    name = "length-ppl"

    def __init__(self) -> None:
        self.pairs = 0

    def perplexities(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        self.pairs += len(pairs)
        return np.array([np.nan if "unscorable" in q else 1.0 + (len(a) % 7) / 2 for q, a in pairs])


def expected_hardness(answer: str) -> float:
    return 1.0 + (len(answer) % 7) / 2


def make_context(tmp_path: Path, **settings: object) -> Context:
    units = tmp_path / "units.json"
    units.write_text(json.dumps({"version": "t1", "knowledge_units": [
        {"id": u, "name": name, "domain": "d"} for u, name in UNITS]}), encoding="utf-8")
    ctx = Context(Settings(home=tmp_path / "home", units_file=units, topic_prefix=PREFIX,  # type: ignore[arg-type]
                           elasticsearch_index=INDEX, **settings))
    ctx.embedder = HashingEmbedder()  # type: ignore[misc]
    ctx.tagger = KeywordTagger()  # type: ignore[misc]
    ctx.perplexity = LengthPerplexity()  # type: ignore[misc]
    ctx.search_index = EmbeddedSearchIndex([u for u, _ in UNITS], HashingEmbedder().dim)  # type: ignore[misc]
    ctx.event_bus = InMemoryEventBus()  # type: ignore[misc]
    return ctx


@pytest.fixture
def ctx(tmp_path: Path) -> Context:
    return make_context(tmp_path)


def records(bus: InMemoryEventBus, topic: str) -> list[BusMessage]:
    """Every record on `topic` so far, read by a fresh consumer group."""
    consumer = bus.consumer(f"reader-{uuid.uuid4().hex}", [topic])
    out: list[BusMessage] = []
    try:
        while batch := consumer.poll(max_records=100, timeout_s=0.05):
            out.extend(batch)
    finally:
        consumer.close()
    return out


def envelopes(bus: InMemoryEventBus, event_type: str) -> list[ev.Envelope]:
    out = []
    for record in records(bus, Topics(PREFIX).of(event_type)):
        message = ev.Envelope()
        message.ParseFromString(record.value)
        out.append(message)
    return out


def run_workers(ctx: Context, until: Callable[[], bool], stages: Sequence[str] = INGEST_STAGES,
                copies: int = 1, timeout_s: float = 60.0) -> list[StageWorker]:
    """Stage workers in threads on the context's bus until `until()` holds (or the timeout)."""
    topics = Topics(PREFIX)
    workers = [StageWorker(ctx.event_bus, topics, IngestStageHandler(s, ctx, topics),
                           WorkerOptions(max_attempts=2, backoff_s=0.0, poll_timeout_s=0.05))
               for s in stages for _ in range(copies)]
    stop = threading.Event()
    threads = [threading.Thread(target=w.run, args=(stop,)) for w in workers]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + timeout_s
    try:
        while not until() and time.monotonic() < deadline:
            time.sleep(0.02)
    finally:
        stop.set()
        for thread in threads:
            thread.join()
    assert until(), "the workers did not get there"
    return workers
