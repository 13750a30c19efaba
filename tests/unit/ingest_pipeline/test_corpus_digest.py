"""A build records a digest of the corpus items that does not depend on how they are stored: a
corpus loaded through the ingest bus has batch shards only (no corpus/items.parquet), and its
builds record what an equal corpus imported with `corpus import` records."""

from __future__ import annotations

import dataclasses

from scicustom.adapters.filesystem_store import FilesystemObjectStore
from scicustom.adapters.parquet_corpus import ParquetCorpusRepository
from scicustom.app.build.world import corpus_digest
from scicustom.app.ingest.batch_submission import paper_items
from tests.unit.ingest_pipeline.test_pipeline_flow import PAPER


def test_the_digest_is_equal_for_one_file_and_for_batch_shards(tmp_path):
    items = paper_items(PAPER)
    imported = ParquetCorpusRepository(FilesystemObjectStore(tmp_path / "imported"))
    imported.save_items(items)
    ingested = ParquetCorpusRepository(FilesystemObjectStore(tmp_path / "ingested"))
    ingested.save_item_shard("b" * 32, items[2:])
    ingested.save_item_shard("a" * 32, items[:2])
    assert not ingested.store.exists("corpus/items.parquet")
    digest = corpus_digest(imported.load_items())
    assert corpus_digest(ingested.load_items()) == digest == corpus_digest(list(reversed(items)))
    changed = [dataclasses.replace(items[0], subject="Other"), *items[1:]]
    assert corpus_digest(changed) != digest
    assert corpus_digest(items[1:]) != digest


def test_text_moved_across_a_field_boundary_changes_the_digest():
    item = paper_items(PAPER)[0]
    moved = dataclasses.replace(item, question=item.question + item.subject[:1], subject=item.subject[1:])
    assert corpus_digest([moved]) != corpus_digest([item])
    options = dataclasses.replace(item, options=("ab", "c"))
    assert corpus_digest([options]) != corpus_digest([dataclasses.replace(item, options=("a", "bc"))])
