"""Hardness is computed once per (item, text, model version) and cached in append-only shards."""

from __future__ import annotations

from dataclasses import replace

import pytest

from scicustom.adapters.filesystem_store import FilesystemObjectStore
from scicustom.adapters.parquet_corpus import ParquetCorpusRepository
from scicustom.app.ingest.intrinsic_scoring import ensure_intrinsic_scores
from scicustom.core.corpus_item import make_item
from scicustom.core.intrinsic import quality_score, scored_text_digest
from tests.unit.ingest_pipeline.conftest import LengthPerplexity, expected_hardness


def _repo(tmp_path):
    return ParquetCorpusRepository(FilesystemObjectStore(tmp_path / "store"))


def _items():
    return [make_item("s", "CC0", "", f"Question {k} about a virus?", [], None, f"answer {'x' * k}") for k in range(4)]


def test_missing_hardness_is_computed_once_and_quality_every_time(tmp_path):
    repo, items, model = _repo(tmp_path), _items(), LengthPerplexity()
    first = ensure_intrinsic_scores(repo, model, items[:2], show_progress=False)
    assert (first.computed, first.cached, model.pairs) == (2, 0, 2)
    assert first.scores == {it.id: (round(quality_score(it.question, it.answer), 6), expected_hardness(it.answer))
                            for it in items[:2]}
    # Duplicates are scored once; what is cached is reused.
    second = ensure_intrinsic_scores(repo, model, [*items, items[3]], show_progress=False)
    assert (second.computed, second.cached, model.pairs) == (2, 2, 4)
    assert second.scores == {**first.scores, **{it.id: (round(quality_score(it.question, it.answer), 6),
                                                        expected_hardness(it.answer)) for it in items[2:]}}


def test_another_text_or_model_version_misses_the_cache(tmp_path):
    repo, items, model = _repo(tmp_path), _items(), LengthPerplexity()
    ensure_intrinsic_scores(repo, model, items, show_progress=False)
    # The same id with another answer text (an edited item): scored again, under its new digest.
    edited = replace(items[0], answer="a longer answer")
    again = ensure_intrinsic_scores(repo, model, [edited], show_progress=False)
    assert again.computed == 1 and again.scores[items[0].id][1] == expected_hardness("a longer answer")

    class NextVersion(LengthPerplexity):
        name = "length-ppl-v2"

    newer = ensure_intrinsic_scores(repo, NextVersion(), items, show_progress=False)
    assert newer.computed == len(items)


def test_shards_are_append_only_and_content_addressed(tmp_path):
    repo = _repo(tmp_path)
    a = repo.add_hardness("m1", {("x", "d1"): 2.5})
    b = repo.add_hardness("m1", {("y", "d2"): 3.5, ("x", "d0"): 9.0})
    assert a != b and repo.add_hardness("m1", {("x", "d1"): 2.5}) == a  # equal content, one file
    assert repo.load_hardness("m1") == {("x", "d1"): 2.5, ("y", "d2"): 3.5, ("x", "d0"): 9.0}
    assert repo.load_hardness("m2") == {}
    assert len(repo.store.list_keys("corpus/hardness/m1/")) == 2
    with pytest.raises(ValueError, match="model name"):
        repo.load_hardness("../escape")
    assert scored_text_digest("q", "a b") != scored_text_digest("q a", "b")  # the boundary is part of it
