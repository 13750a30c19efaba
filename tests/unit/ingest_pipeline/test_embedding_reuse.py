"""The tag stage reuses stored vectors: an item with a vector under the embedder's name is not
embedded again, and what it writes equals what fresh embedding writes; seeding copies another
home's vectors into a store."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

from scicustom.adapters.filesystem_store import FilesystemObjectStore
from scicustom.adapters.parquet_corpus import ParquetCorpusRepository
from scicustom.app.ingest.batch_stages import tag_batch
from scicustom.app.ingest.batch_submission import paper_items
from scicustom.app.ingest.item_batches import BatchKeys, write_imported
from scicustom.app.ingest.item_embeddings import StoredEmbeddings, seed_embeddings
from scicustom.ingest.worker import IngestStageHandler, ItemsImportedPublisher
from scicustom.workers.topics import ITEMS_INDEXED, Topics
from tests.support.hashing_embedder import HashingEmbedder
from tests.unit.ingest_pipeline.conftest import PREFIX, envelopes, make_context, run_workers
from tests.unit.ingest_pipeline.test_pipeline_flow import PAPER


class CountingEmbedder(HashingEmbedder):
    def __init__(self) -> None:
        super().__init__()
        self.encoded: list[str] = []

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        self.encoded.extend(texts)
        return super().encode(texts)


def _repo(path) -> ParquetCorpusRepository:
    return ParquetCorpusRepository(FilesystemObjectStore(path))


def test_stored_vectors_are_returned_as_stored_and_only_misses_are_embedded(tmp_path):
    items = paper_items(PAPER)
    repo = _repo(tmp_path / "store")
    fresh = HashingEmbedder().encode([it.text for it in items])
    repo.add_embeddings(HashingEmbedder.name, [items[0].id, items[2].id], fresh[[0, 2]])
    embedder = CountingEmbedder()
    stored = StoredEmbeddings(repo, embedder)

    vectors, embedded = stored.vectors(items)

    assert embedded == 2
    assert embedder.encoded == [items[1].text, items[3].text]
    assert vectors.dtype == np.float32 and vectors.tobytes() == fresh.tobytes()
    embedder.encoded.clear()
    again, embedded = stored.vectors([items[2], items[0]])
    assert embedded == 0 and embedder.encoded == []  # all stored: the model is not called
    assert again.tobytes() == fresh[[2, 0]].tobytes()


def test_the_snapshot_is_read_once(tmp_path):
    items = paper_items(PAPER)
    repo = _repo(tmp_path / "store")
    reads = []
    load = repo.load_embeddings
    repo.load_embeddings = lambda model: reads.append(model) or load(model)  # type: ignore[method-assign]
    stored = StoredEmbeddings(repo, HashingEmbedder())
    stored.vectors(items[:2])
    stored.vectors(items[2:])
    assert reads == [HashingEmbedder.name]


def test_vectors_of_another_model_name_are_not_used(tmp_path):
    items = paper_items(PAPER)
    repo = _repo(tmp_path / "store")
    repo.add_embeddings("another-model", [it.id for it in items], np.ones((len(items), 256), dtype=np.float32))
    embedder = CountingEmbedder()
    vectors, embedded = StoredEmbeddings(repo, embedder).vectors(items)
    assert embedded == len(items)
    assert vectors.tobytes() == HashingEmbedder().encode([it.text for it in items]).tobytes()


def test_a_stored_vector_of_another_size_is_refused(tmp_path):
    items = paper_items(PAPER)
    repo = _repo(tmp_path / "store")
    repo.add_embeddings(HashingEmbedder.name, [items[0].id], np.ones((1, 8), dtype=np.float32))
    with pytest.raises(ValueError, match="dimensions"):
        StoredEmbeddings(repo, HashingEmbedder()).vectors(items)


def test_tagged_output_with_reuse_equals_fresh_embedding(tmp_path):
    items = paper_items(PAPER)
    ctx = make_context(tmp_path)
    outputs = {}
    for name, stored in (("fresh", None), ("reused", StoredEmbeddings(_repo(tmp_path / "seeded"), CountingEmbedder()))):
        store = FilesystemObjectStore(tmp_path / name)
        batch = write_imported(store, {"source": "paper", "origin": "p"}, items)
        embedder = stored.embedder if stored is not None else HashingEmbedder()
        if stored is not None:  # every item but the last has a stored vector
            stored.repo.add_embeddings(embedder.name, [it.id for it in items[:-1]],
                                       HashingEmbedder().encode([it.text for it in items[:-1]]))
        outcome = tag_batch(store, batch.batch_id, store.get_bytes(BatchKeys(batch.batch_id).imported), "paper",
                            embedder, ctx.tagger, ctx.catalog, stored)
        outputs[name] = (store.get_bytes(BatchKeys(batch.batch_id).tagged), outcome)
    assert outputs["reused"][0] == outputs["fresh"][0]
    assert outputs["reused"][1].report["reused_embeddings"] == len(items) - 1
    assert "reused_embeddings" not in outputs["fresh"][1].report


def test_seeding_copies_the_missing_vectors_once(tmp_path):
    items = paper_items(PAPER)
    home, cluster = _repo(tmp_path / "home"), _repo(tmp_path / "cluster")
    vectors = HashingEmbedder().encode([it.text for it in items])
    home.add_embeddings(HashingEmbedder.name, [it.id for it in items], vectors)
    cluster.add_embeddings(HashingEmbedder.name, [items[0].id], vectors[:1])

    assert seed_embeddings(home, cluster, HashingEmbedder.name, shard_rows=2) == (3, 1)
    assert seed_embeddings(home, cluster, HashingEmbedder.name) == (0, 4)
    ids, matrix = cluster.load_embeddings(HashingEmbedder.name)
    row = {item_id: r for r, item_id in enumerate(ids)}
    assert sorted(ids) == sorted(it.id for it in items)
    assert matrix[[row[it.id] for it in items]].tobytes() == vectors.tobytes()


def test_the_tag_worker_embeds_only_items_without_a_stored_vector(tmp_path):
    ctx = make_context(tmp_path)
    embedder = CountingEmbedder()
    ctx.embedder = embedder  # type: ignore[misc]
    items = paper_items(PAPER)
    ctx.corpus.add_embeddings(embedder.name, [it.id for it in items[:3]],
                              HashingEmbedder().encode([it.text for it in items[:3]]))
    from scicustom.app.ingest.batch_submission import submit_paper

    submit_paper(ctx.store, ItemsImportedPublisher(ctx.store, ctx.event_bus, Topics(PREFIX)), PAPER)
    run_workers(ctx, lambda: len(envelopes(ctx.event_bus, ITEMS_INDEXED)) >= 1)
    assert embedder.encoded == [items[3].text]


def test_reuse_can_be_turned_off(tmp_path):
    ctx = make_context(tmp_path, ingest_reuse_embeddings=False)
    assert IngestStageHandler("tag", ctx, Topics(PREFIX)).stored_embeddings() is None
    (tmp_path / "on").mkdir()
    on = IngestStageHandler("tag", make_context(tmp_path / "on"), Topics(PREFIX))
    assert on.stored_embeddings() is on.stored_embeddings()  # one snapshot per worker
