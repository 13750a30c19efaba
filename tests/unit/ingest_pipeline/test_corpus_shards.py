"""CorpusRepository batch shards: the loaders merge base + shards (later wins), shard bytes depend
only on their content, and the existing base-file methods keep their behaviour."""

from __future__ import annotations

import io
import zipfile

import numpy as np
import pytest

from scicustom.adapters.filesystem_store import FilesystemObjectStore
from scicustom.adapters.parquet_corpus import ParquetCorpusRepository, batch_shard_name
from scicustom.core.corpus_item import make_item


@pytest.fixture
def repo(tmp_path) -> ParquetCorpusRepository:
    return ParquetCorpusRepository(FilesystemObjectStore(tmp_path))


def _item(question: str, subject: str = ""):
    return make_item("s", "CC0", subject, question, ["a", "b"], 0)


def test_items_merge_base_first_then_shards_in_key_order_later_wins(repo):
    a, b, c = _item("A?"), _item("B?"), _item("C?")
    b_new = _item("B?", subject="revised")  # same id, other content
    assert b_new.id == b.id
    repo.save_items([a, b])
    repo.save_item_shard("zz", [b_new])
    repo.save_item_shard("aa", [c, _item("B?", subject="older shard")])
    loaded = repo.load_items()
    assert [it.id for it in loaded] == [*sorted([a.id, b.id]), c.id]
    assert {it.id: it.subject for it in loaded}[b.id] == "revised"  # shard zz comes after aa and the base
    assert len(loaded) == 3


def test_tag_shards_merge_over_the_base_later_wins(repo):
    repo.save_tags("v1", {"x": [("u1", 0.5)], "y": [("u2", 0.4)]})
    repo.save_tags_shard("v1", "b2", {"y": [("u3", 0.9), ("u1", 0.1)]})
    repo.save_tags_shard("v1", "b1", {"z": []})
    repo.save_tags_shard("v2", "b1", {"w": [("u1", 1.0)]})
    assert repo.load_tags("v1") == {"x": [("u1", 0.5)], "y": [("u3", 0.9), ("u1", 0.1)], "z": []}


def test_embeddings_numbered_shards_first_then_batches_later_wins(repo):
    repo.save_embeddings_shard("m", "b1", ["b", "c"], np.array([[0, 2], [0, 3]], dtype=np.float32))
    repo.add_embeddings("m", ["a", "b"], np.array([[1, 0], [1, 1]], dtype=np.float32))
    assert repo.store.exists("corpus/embeddings/m/shard-00000.npz")  # numbering ignores batch shards
    repo.add_embeddings("m", ["d"], np.array([[4, 4]], dtype=np.float32))
    assert repo.store.exists("corpus/embeddings/m/shard-00001.npz")
    ids, matrix = repo.load_embeddings("m")
    assert ids == ["a", "b", "d", "c"]
    np.testing.assert_array_equal(matrix, np.array([[1, 0], [0, 2], [4, 4], [0, 3]], dtype=np.float32))
    assert matrix.dtype == np.float32


def test_shard_bytes_depend_on_content_only(repo):
    items = [_item("B?"), _item("A?")]
    first = repo.store.get_bytes(repo.save_item_shard("b1", items))
    assert repo.store.get_bytes(repo.save_item_shard("b1", list(reversed(items)))) == first
    key = repo.save_embeddings_shard("m", "b1", ["x"], np.ones((1, 3), dtype=np.float32))
    data = repo.store.get_bytes(key)
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        assert [(i.filename, i.date_time) for i in archive.infolist()] == [
            ("ids.npy", (1980, 1, 1, 0, 0, 0)), ("vectors.npy", (1980, 1, 1, 0, 0, 0))]
    with np.load(io.BytesIO(data)) as loaded:
        assert list(loaded["ids"]) == ["x"] and loaded["vectors"].tolist() == [[1.0, 1.0, 1.0]]


@pytest.mark.parametrize("bad", ["", "../x", "a/b", "-lead", "x" * 129, "a.b"])
def test_batch_ids_that_would_escape_their_folder_are_refused(bad):
    with pytest.raises(ValueError, match="batch id"):
        batch_shard_name(bad, "parquet")


def test_files_that_are_not_batch_shards_are_ignored(repo):
    repo.save_items([_item("A?")])
    repo.store.put_bytes("corpus/items/notes.txt", b"not parquet")
    repo.store.put_bytes("corpus/items/old/batch-x.parquet", b"nested")
    assert [it.question for it in repo.load_items()] == ["A?"]
