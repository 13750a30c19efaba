"""SearchIndex contract on the embedded index (the integration suite adds Elasticsearch), and the
SparseUnitIndex candidate path the embedded builds use."""

from __future__ import annotations

import numpy as np
import pytest

from scicustom.adapters.embedded_search_index import EmbeddedSearchIndex
from scicustom.adapters.embedded_vector_index import EmbeddedVectorIndex
from scicustom.adapters.filesystem_store import FilesystemObjectStore
from scicustom.adapters.sparse_unit_index import SparseUnitIndex
from scicustom.core.build.candidates import Candidate
from scicustom.ports import IndexedItem
from tests.support.contracts.search_index import CONSENSUS, EXPECTED, SearchIndexContract


class TestEmbeddedSearchIndex(SearchIndexContract):
    @pytest.fixture
    def make_index(self):
        return EmbeddedSearchIndex


def test_a_saved_and_loaded_sparse_index_orders_candidates_alike(tmp_path):
    tags = {"a": [("u1", 0.9), ("u2", 0.4)], "b": [("u2", 0.8)], "c": [("u3", 0.7), ("u1", 0.3)],
            "d": [("u4", 0.6)], "f": [("u3", 0.5)]}
    store = FilesystemObjectStore(tmp_path)
    SparseUnitIndex.from_tags(tags, ["u1", "u2", "u3", "u4", "u5"]).save(store, "index/units.npz")
    loaded = SparseUnitIndex.load(store, "index/units.npz")
    assert loaded.ordered_candidates(["u1", "u2", "u3"], CONSENSUS) == EXPECTED
    assert loaded.ordered_candidates(["u1", "u2", "u3"], CONSENSUS, limit=2, after=EXPECTED[0]) == EXPECTED[1:3]


def test_vector_index_rejects_zero_rows_and_mismatched_ids():
    with pytest.raises(ValueError, match="zero embedding"):
        EmbeddedVectorIndex(["a", "b"], np.array([[1.0, 0.0], [0.0, 0.0]]))
    with pytest.raises(ValueError):
        EmbeddedVectorIndex(["a"], np.ones((2, 3)))


def test_vector_index_ties_go_to_the_smaller_id_whatever_the_input_order():
    index = EmbeddedVectorIndex(["z", "m", "a"], np.array([[1.0, 1.0], [2.0, 2.0], [0.0, 1.0]]))
    assert [i for i, _ in index.nearest(np.array([1.0, 1.0]), 3)] == ["m", "z", "a"]


def test_a_cursor_skips_equal_keys_with_smaller_or_equal_ids():
    index = EmbeddedSearchIndex(["u1"], 2)
    index.index_items([IndexedItem(i, ("u1",), i, 1.0, 1.0, np.ones(2)) for i in ("z", "a", "m")])
    page = index.ordered_candidates(["u1"], {"u1": 1.0}, after=Candidate("m", ("u1",), 1.0))
    assert page == [Candidate("z", ("u1",), 1.0)]
