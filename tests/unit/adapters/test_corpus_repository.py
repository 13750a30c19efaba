from __future__ import annotations

import numpy as np

from scicustom.adapters.filesystem_store import FilesystemObjectStore
from scicustom.adapters.parquet_corpus import ParquetCorpusRepository
from scicustom.adapters.sparse_unit_index import SparseUnitIndex
from scicustom.core.corpus_item import make_item


def test_items_round_trip_through_parquet(tmp_path):
    repo = ParquetCorpusRepository(FilesystemObjectStore(tmp_path))
    items = [make_item("mmlu", "MIT", "virology", "Q1?", ["a", "b", "c"], 1),
             make_item("user", "CC0", "", "Q2?", [], None, "free answer")]
    repo.save_items(items)
    assert sorted(repo.load_items(), key=lambda i: i.id) == sorted(items, key=lambda i: i.id)


def test_embeddings_append_as_shards(tmp_path):
    repo = ParquetCorpusRepository(FilesystemObjectStore(tmp_path))
    repo.add_embeddings("m", ["a", "b"], np.eye(2, 3, dtype=np.float32))
    repo.add_embeddings("m", ["c"], np.ones((1, 3), dtype=np.float32))
    ids, matrix = repo.load_embeddings("m")
    assert ids == ["a", "b", "c"] and matrix.shape == (3, 3) and matrix[2].sum() == 3
    assert repo.load_embeddings("other")[0] == []


def test_sparse_index_shared_units_and_persistence(tmp_path):
    store = FilesystemObjectStore(tmp_path)
    tags = {"i1": [("u1", 0.9), ("u2", 0.5)], "i2": [("u2", 0.7)], "i3": [("u3", 0.4)]}
    index = SparseUnitIndex.from_tags(tags, ["u1", "u2", "u3", "u4"])
    index.save(store, "index/x.npz")
    loaded = SparseUnitIndex.load(store, "index/x.npz")
    assert loaded.items_with_units(["u2", "u1"]) == {"i1": ["u2", "u1"], "i2": ["u2"]}
    assert loaded.items_with_units(["u4", "missing"]) == {}
    assert loaded.unit_counts() == {"u1": 1, "u2": 2, "u3": 1, "u4": 0}
    assert loaded.item_ids() == ["i1", "i2", "i3"]
