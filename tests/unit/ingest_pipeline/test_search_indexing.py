"""Indexing the corpus of record into a search index: only tagged items, missing embeddings and
scores computed, chunks marked so that a rerun indexes only what is new; `scicustom corpus index`."""

from __future__ import annotations

import numpy as np
import pytest

from scicustom.adapters.embedded_search_index import EmbeddedSearchIndex
from scicustom.adapters.filesystem_store import FilesystemObjectStore
from scicustom.adapters.parquet_corpus import ParquetCorpusRepository
from scicustom.app.ingest.search_indexing import index_corpus, indexed_ids
from scicustom.cli import build_parser, main
from scicustom.core.corpus_item import make_item
from scicustom.core.errors import InvalidInput, PreconditionFailed
from scicustom.core.intrinsic import quality_score, scored_text_digest
from tests.support.hashing_embedder import HashingEmbedder
from tests.unit.ingest_pipeline.conftest import UNITS, LengthPerplexity, expected_hardness

EMBEDDER = HashingEmbedder()


def _corpus(tmp_path):
    repo = ParquetCorpusRepository(FilesystemObjectStore(tmp_path / "store"))
    items = [make_item("s", "CC0", "", f"Question {k} about a virus?", [], None, f"answer {'x' * k}")
             for k in range(7)]
    repo.save_items(items)
    tags = {it.id: [("u1", 0.9)] + ([("u2", 0.3)] if k % 2 else []) for k, it in enumerate(items[:5])}
    repo.save_tags("v1", tags)  # items 5 and 6 are not tagged by v1
    # Scored earlier under this model and text: reused, not recomputed.
    first_key = (items[0].id, scored_text_digest(items[0].question, items[0].answer))
    repo.add_hardness(LengthPerplexity.name, {first_key: 7.25})
    repo.add_embeddings(EMBEDDER.name, [items[1].id], EMBEDDER.encode([items[1].text]))
    return repo, items, tags


def _index() -> EmbeddedSearchIndex:
    return EmbeddedSearchIndex([u for u, _ in UNITS], EMBEDDER.dim)


def test_tagged_items_are_indexed_once_with_their_units_scores_and_embeddings(tmp_path):
    repo, items, tags = _corpus(tmp_path)
    index, perplexity = _index(), LengthPerplexity()
    report = index_corpus(repo, index, "idx", "v1", EMBEDDER, perplexity, chunk=2, show_progress=False)
    assert (report.tagged, report.already_indexed, report.indexed, report.embedded, report.scored) == (5, 0, 5, 4, 4)
    assert index.item_ids() == sorted(it.id for it in items[:5])
    first, third = index.item(items[0].id), index.item(items[3].id)
    assert first.units == ("u1",) and third.units == ("u1", "u2")
    assert (first.quality, first.hardness) == (round(quality_score(items[0].question, items[0].answer), 6), 7.25)
    assert third.hardness == expected_hardness(items[3].answer)
    assert third.quality == round(quality_score(items[3].question, items[3].answer), 6)
    np.testing.assert_array_equal(third.embedding, EMBEDDER.encode([items[3].text])[0])
    assert indexed_ids(repo.store, "idx", "v1") == set(tags)
    assert len(repo.store.list_keys("index/v1/search-indexed/idx/")) == 3  # chunks of 2, 2, 1

    again = index_corpus(repo, index, "idx", "v1", EMBEDDER, perplexity, chunk=2, show_progress=False)
    assert (again.indexed, again.already_indexed, again.embedded, again.scored) == (0, 5, 0, 0)
    assert perplexity.pairs == 4

    # An item that arrives through a batch shard is the only one indexed next time.
    new = make_item("s", "CC0", "", "A bone question?", [], None, "yes")
    repo.save_item_shard("b1", [new])
    repo.save_tags_shard("v1", "b1", {new.id: [("u2", 0.8)]})
    newer = index_corpus(repo, index, "idx", "v1", EMBEDDER, perplexity, show_progress=False)
    assert (newer.indexed, newer.already_indexed) == (1, 5)
    assert index.item(new.id).units == ("u2",)

    full = index_corpus(repo, index, "idx", "v1", EMBEDDER, perplexity, reindex=True, show_progress=False)
    assert (full.indexed, full.embedded, full.scored) == (6, 0, 0)
    other = index_corpus(repo, _index(), "other-idx", "v1", EMBEDDER, perplexity, show_progress=False)
    assert other.indexed == 6  # markers are per index name


def test_nothing_tagged_or_a_bad_index_name_is_refused(tmp_path):
    repo, _, _ = _corpus(tmp_path)
    with pytest.raises(PreconditionFailed, match="no item is tagged by v9"):
        index_corpus(repo, _index(), "idx", "v9", EMBEDDER, LengthPerplexity(), show_progress=False)
    with pytest.raises(InvalidInput, match="index"):
        index_corpus(repo, _index(), "../idx", "v1", EMBEDDER, LengthPerplexity(), show_progress=False)
    with pytest.raises(InvalidInput, match="--chunk"):
        index_corpus(repo, _index(), "idx", "v1", EMBEDDER, LengthPerplexity(), chunk=0, show_progress=False)


def test_corpus_index_is_a_corpus_sub_command_beside_the_others(tmp_path, monkeypatch, capsys):
    from scicustom.commands import corpus, corpus_index

    parser = build_parser()
    args = parser.parse_args(["corpus", "index", "--chunk", "50", "--reindex"])
    assert (args.handler, args.chunk, args.reindex) == (corpus_index._index, 50, True)
    assert parser.parse_args(["corpus", "import", "--limit-per-source", "3"]).handler is corpus._import
    assert parser.parse_args(["corpus", "tag"]).handler is corpus._tag
    monkeypatch.setenv("SCICUSTOM_HOME", str(tmp_path))
    monkeypatch.delenv("SCICUSTOM_PROFILE", raising=False)
    assert main(["corpus", "index"]) == 2
    assert "use --profile cluster" in capsys.readouterr().err
