"""Items flow imported -> tagged -> indexed through the tag and index StageWorkers on the in-memory
bus, into the embedded search index and the corpus of record; redeliveries change nothing; a
poison record is dead-lettered while later batches still flow."""

from __future__ import annotations

import json

import numpy as np

from scicustom.app.ingest.batch_submission import Paper, PaperItem, paper_items, submit_paper
from scicustom.app.ingest.intrinsic_scoring import ensure_intrinsic_scores
from scicustom.app.ingest.item_batches import BatchKeys, batch_state, write_imported
from scicustom.app.ingest.search_indexing import indexed_ids
from scicustom.core.intrinsic import quality_score
from scicustom.events.v1 import events_pb2 as ev
from scicustom.ingest.worker import IngestStageHandler, ItemsImportedPublisher
from scicustom.workers.envelopes import envelope, publish, ref_of
from scicustom.workers.topics import ITEMS_IMPORTED, ITEMS_INDEXED, ITEMS_TAGGED, Topics
from tests.support.hashing_embedder import HashingEmbedder
from tests.unit.ingest_pipeline.conftest import INDEX, PREFIX, envelopes, expected_hardness, records, run_workers

PAPER = Paper("doi:10.1/x", "Viruses and bones", "CC-BY-4.0", (
    PaperItem("Which virus family has a capsid?", options=("Adenovirus", "Bone cell", "Enzyme"), answer_index=0),
    PaperItem("What does an osteoclast do to bone?", answer="It resorbs bone."),
    PaperItem("Which enzyme unwinds DNA before a virus replicates?", options=("Helicase", "Ligase"),
              answer_index=0),
    PaperItem("Who wrote Hamlet?", options=("Shakespeare", "Marlowe"), answer_index=0),
))


def _indexed(ctx, n: int = 1):
    return lambda: len(envelopes(ctx.event_bus, ITEMS_INDEXED)) >= n


def _store_bytes(ctx) -> dict[str, bytes]:
    return {k: ctx.store.get_bytes(k) for k in ctx.store.list_keys("")}


def test_a_paper_flows_into_the_index_and_the_corpus_of_record(ctx):
    batch, item_ids = submit_paper(ctx.store, ItemsImportedPublisher(ctx.store, ctx.event_bus, Topics(PREFIX)), PAPER)
    assert len(item_ids) == 4 and len(set(item_ids)) == 4 and batch.count == 4
    run_workers(ctx, _indexed(ctx))
    (tagged,) = envelopes(ctx.event_bus, ITEMS_TAGGED)
    (indexed,) = envelopes(ctx.event_bus, ITEMS_INDEXED)
    assert tagged.batch_id == indexed.batch_id == batch.batch_id
    assert tagged.items_batch.tagger_version == indexed.items_batch.tagger_version == "keyword-tagger-v1"
    assert tagged.items_batch.count == indexed.items_batch.count == 4
    assert indexed.items_batch.source == "paper"

    virus, bone, enzyme, hamlet = item_ids
    index = ctx.search_index
    assert index.item_ids() == sorted(item_ids)
    # Units as the tagger gave them, best first; the Non-Scientific item carries that unit alone.
    assert index.item(virus).units == ("u1",)
    assert index.item(bone).units == ("u2",)
    assert index.item(enzyme).units == ("u1", "u3")
    assert index.item(hamlet).units == ("ns",)
    assert index.items_with_units(["u1"]) == {virus: ["u1"], enzyme: ["u1"]}
    item = index.item(bone)
    assert item.text == "What does an osteoclast do to bone?\nAnswer: It resorbs bone."
    # Hardness is left to the builds that need it: ingestion runs no perplexity model.
    assert item.hardness is None and ctx.perplexity.pairs == 0
    assert item.quality == round(quality_score("What does an osteoclast do to bone?", "It resorbs bone."), 6)
    np.testing.assert_array_equal(item.embedding, HashingEmbedder().encode([item.text])[0])

    corpus = ctx.corpus
    items = {it.id: it for it in corpus.load_items()}
    assert set(items) == set(item_ids)
    assert items[virus].answer == "Adenovirus" and items[virus].subject == "Viruses and bones"
    assert items[virus].licence == "CC-BY-4.0" and items[bone].format == "open"
    assert corpus.load_tags("keyword-tagger-v1") == {virus: [("u1", 0.9)], bone: [("u2", 0.8)],
                                                     enzyme: [("u1", 0.9), ("u3", 0.7)], hamlet: [("ns", 0.6)]}
    # What a build asks for later: the indexed quality, and the hardness computed then and cached.
    scored = ensure_intrinsic_scores(corpus, ctx.perplexity, [items[bone]], show_progress=False)
    assert scored.scores == {bone: (item.quality, expected_hardness("It resorbs bone."))} and scored.computed == 1
    assert ensure_intrinsic_scores(corpus, ctx.perplexity, [items[bone]], show_progress=False).cached == 1
    assert ctx.perplexity.pairs == 1
    ids, matrix = corpus.load_embeddings("hashing-test")
    assert sorted(ids) == sorted(item_ids)
    np.testing.assert_array_equal(matrix[ids.index(bone)], item.embedding)
    assert indexed_ids(ctx.store, INDEX, "keyword-tagger-v1") == set(item_ids)

    state = batch_state(ctx.store, batch.batch_id)
    assert state is not None and state.state == "indexed"
    assert state.report is not None and state.report["indexed"] == 4 and state.report["skipped"] == {}
    assert state.report["item_ids"] == sorted(item_ids)
    assert set(state.report["seconds"]) == {"embedding", "tagging", "quality", "indexing"}


def test_redelivered_events_publish_equal_events_and_rewrite_nothing(ctx):
    batch, _ = submit_paper(ctx.store, ItemsImportedPublisher(ctx.store, ctx.event_bus, Topics(PREFIX)), PAPER)
    run_workers(ctx, _indexed(ctx))
    before = _store_bytes(ctx)
    tag_calls, scored = ctx.tagger.calls, ctx.perplexity.pairs
    # The same paper again (a client retry) and the same imported event delivered a second time.
    again, _ = submit_paper(ctx.store, ItemsImportedPublisher(ctx.store, ctx.event_bus, Topics(PREFIX)), PAPER)
    assert again.batch_id == batch.batch_id
    run_workers(ctx, _indexed(ctx, 2))
    assert _store_bytes(ctx) == before
    assert (ctx.tagger.calls, ctx.perplexity.pairs) == (tag_calls, scored)
    first, second = envelopes(ctx.event_bus, ITEMS_INDEXED)
    assert first.event_id == second.event_id
    assert first.items_batch == second.items_batch
    t1, t2 = envelopes(ctx.event_bus, ITEMS_TAGGED)
    assert t1.event_id == t2.event_id and t1.items_batch == t2.items_batch


def test_a_batch_killed_between_its_writes_completes_on_redelivery_with_equal_bytes(ctx, tmp_path):
    """The index stage wrote its shards but died before indexed.json: the redelivery finishes it."""
    batch, _ = submit_paper(ctx.store, ItemsImportedPublisher(ctx.store, ctx.event_bus, Topics(PREFIX)), PAPER)
    run_workers(ctx, _indexed(ctx))
    finished = _store_bytes(ctx)
    ctx.store.delete(BatchKeys(batch.batch_id).indexed)
    handler = IngestStageHandler("index", ctx, Topics(PREFIX))
    (tagged,) = envelopes(ctx.event_bus, ITEMS_TAGGED)
    (out,) = handler.handle(tagged)
    assert out.envelope.event_id == envelopes(ctx.event_bus, ITEMS_INDEXED)[0].event_id
    after = _store_bytes(ctx)
    assert set(after) == set(finished)
    report = BatchKeys(batch.batch_id).indexed
    assert {k: v for k, v in after.items() if k != report} == {k: v for k, v in finished.items() if k != report}
    old, new = json.loads(finished[report]), json.loads(after[report])
    assert old.pop("seconds") and new.pop("seconds")  # only the timings may differ
    assert new == old


def _publish_imported(ctx, batch_id: str, key: str | None = None, source: str = "hand") -> None:
    keys = BatchKeys(batch_id)
    ref = ref_of(ctx.store, key or keys.imported)
    message = envelope(ITEMS_IMPORTED, batch_id=batch_id, items_batch=ev.ItemsBatch(items=ref, count=1, source=source))
    publish(ctx.event_bus, Topics(PREFIX).of(ITEMS_IMPORTED), batch_id, message)


def test_a_poison_record_goes_to_the_dead_letter_topic_and_later_batches_still_flow(ctx):
    topics = Topics(PREFIX)
    ctx.event_bus.send(topics.of(ITEMS_IMPORTED), b"\x08\x96\x01 not an envelope", key="junk")
    # A batch whose stored bytes were altered after it was announced: no retry can fix it.
    altered = write_imported(ctx.store, {"source": "hand"}, paper_items(PAPER)[:1])
    _publish_imported(ctx, altered.batch_id)
    ctx.store.put_bytes(BatchKeys(altered.batch_id).imported, b"{}\n")
    _, item_ids = submit_paper(ctx.store, ItemsImportedPublisher(ctx.store, ctx.event_bus, topics), PAPER)
    workers = run_workers(ctx, _indexed(ctx))
    letters = records(ctx.event_bus, topics.dead_letters("tag"))
    assert len(letters) == 2
    first, second = ev.DeadLetter(), ev.DeadLetter()
    first.ParseFromString(letters[0].value)
    second.ParseFromString(letters[1].value)
    assert first.stage == "tag" and first.attempts == 1 and "undecodable" in first.error
    assert first.value == b"\x08\x96\x01 not an envelope"
    assert "does not match its sha256" in second.error and second.attempts == 1
    tag_worker = next(w for w in workers if w.stage == "tag")
    assert tag_worker.stats.dead_lettered == 2 and tag_worker.stats.consecutive_dead == 0
    assert ctx.search_index.item_ids() == sorted(item_ids)
    failed = batch_state(ctx.store, altered.batch_id)
    assert failed is not None and failed.state == "failed"
    assert failed.failure is not None and failed.failure["stage"] == "tag"
    assert records(ctx.event_bus, topics.dead_letters("index")) == []


def test_an_event_of_another_kind_or_batch_is_poison(ctx):
    from scicustom.workers.envelopes import PoisonEvent

    handler = IngestStageHandler("tag", ctx, Topics(PREFIX))
    build = envelope("build.requested", build_id="b1", build_requested=ev.BuildRequested())
    bad_id = envelope(ITEMS_IMPORTED, batch_id="../x", items_batch=ev.ItemsBatch())
    batch, _ = submit_paper(ctx.store, ItemsImportedPublisher(ctx.store, ctx.event_bus, Topics(PREFIX)), PAPER)
    other_key = envelope(ITEMS_IMPORTED, batch_id=batch.batch_id, items_batch=ev.ItemsBatch(
        items=ref_of(ctx.store, BatchKeys(batch.batch_id).meta)))
    untagged = envelope(ITEMS_TAGGED, batch_id=batch.batch_id, items_batch=ev.ItemsBatch(
        items=ev.ArtifactRef(key=BatchKeys(batch.batch_id).tagged)))
    for handler_, event, words in ((handler, build, "cannot handle"), (handler, bad_id, "hex digits"),
                                   (handler, other_key, "refers to"),
                                   (IngestStageHandler("index", ctx, Topics(PREFIX)), untagged, "tagger version")):
        try:
            handler_.handle(event)
        except PoisonEvent as exc:
            assert words in str(exc)
        else:
            raise AssertionError(f"{event.type} was handled")


def test_concurrent_index_workers_lose_no_batch(ctx):
    topics = Topics(PREFIX)
    papers = [Paper(f"p{k}", f"Paper {k}", "CC0", tuple(
        PaperItem(f"Question {k}-{j} about a virus and a bone?", answer=f"answer {k} {j}") for j in range(5)))
        for k in range(6)]
    ctx.event_bus.ensure_topic(topics.of(ITEMS_TAGGED), partitions=3)
    ctx.event_bus.ensure_topic(topics.of(ITEMS_IMPORTED), partitions=3)
    expected = set()
    for paper in papers:
        _, ids = submit_paper(ctx.store, ItemsImportedPublisher(ctx.store, ctx.event_bus, topics), paper)
        expected |= set(ids)
    run_workers(ctx, _indexed(ctx, 6), copies=3)
    assert {it.id for it in ctx.corpus.load_items()} == expected
    assert set(ctx.corpus.load_tags("keyword-tagger-v1")) == expected
    assert set(ctx.corpus.load_embeddings("hashing-test")[0]) == expected
    assert set(ctx.search_index.item_ids()) == expected
