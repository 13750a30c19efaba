"""The SearchIndex contract (UnitIndex + candidate order + kNN + idempotent indexing).

A test class inherits it and provides `make_index`: (unit_ids, dims) -> a new, empty index.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scicustom.core.build.candidates import Candidate, order_candidates
from scicustom.core.build.vote import aggregate_votes
from scicustom.core.errors import InvalidInput
from scicustom.ports import IndexedItem

UNITS = ["u1", "u2", "u3", "u4", "u5"]


def item(item_id: str, units: tuple[str, ...], vector=(1.0, 0.0, 0.0), text: str = "") -> IndexedItem:
    return IndexedItem(item_id, units, text or f"question {item_id}", hardness=2.5, quality=60.0,
                       embedding=np.asarray(vector, dtype=np.float32))


SMALL = [
    item("a", ("u1", "u2"), (1, 0, 0)),
    item("b", ("u2",), (0, 1, 0)),
    item("c", ("u3", "u1"), (1, 1, 0)),
    item("d", ("u4",), (0, 0, 1)),
    item("e", (), (1, 0, 1)),
    item("f", ("u3",), (-1, 0, 0)),
]
CONSENSUS = {"u1": 1.0, "u2": 2.5, "u3": 2.5, "u4": 4.0}
# By hand: a and c share 2 voted units with mean rank 1.75 (id decides), b and f share one at 2.5.
EXPECTED = [Candidate("a", ("u1", "u2"), 1.75), Candidate("c", ("u1", "u3"), 1.75),
            Candidate("b", ("u2",), 2.5), Candidate("f", ("u3",), 2.5)]


class SearchIndexContract:
    @pytest.fixture
    def small(self, make_index):
        index = make_index(UNITS, 3)
        assert index.index_items(SMALL) == len(SMALL)
        return index

    def test_membership_queries(self, small):
        assert small.item_ids() == ["a", "b", "c", "d", "e", "f"]
        assert small.unit_counts() == {"u1": 2, "u2": 2, "u3": 2, "u4": 1, "u5": 0}
        assert small.items_with_units(["u2", "u1"]) == {"a": ["u2", "u1"], "b": ["u2"], "c": ["u1"]}
        assert small.items_with_units(["u5", "unknown"]) == {}
        assert small.items_with_units([]) == {}

    def test_candidates_in_the_papers_order(self, small):
        assert small.ordered_candidates(["u1", "u2", "u3"], CONSENSUS) == EXPECTED
        assert small.ordered_candidates(["u3", "u2", "u1"], CONSENSUS) == EXPECTED
        assert small.ordered_candidates(["u1", "u1", "u2", "u3", "u2"], CONSENSUS) == EXPECTED
        assert small.ordered_candidates(["u4"], CONSENSUS) == [Candidate("d", ("u4",), 4.0)]
        assert small.ordered_candidates([], CONSENSUS) == []

    def test_candidate_pages_follow_a_cursor(self, small):
        voted = ["u1", "u2", "u3"]
        first = small.ordered_candidates(voted, CONSENSUS, limit=1)
        second = small.ordered_candidates(voted, CONSENSUS, limit=2, after=first[-1])
        third = small.ordered_candidates(voted, CONSENSUS, after=second[-1])
        assert first + second + third == EXPECTED
        assert small.ordered_candidates(voted, CONSENSUS, after=EXPECTED[-1]) == []
        assert small.ordered_candidates(voted, CONSENSUS, limit=0) == []

    def test_bad_candidate_queries_name_the_field(self, small):
        with pytest.raises(InvalidInput) as missing:
            small.ordered_candidates(["u1", "u5"], CONSENSUS)
        assert missing.value.field == "consensus"
        with pytest.raises(InvalidInput) as cursor:
            small.ordered_candidates(["u1"], CONSENSUS, after=Candidate("x", ("u4",), 4.0))
        assert cursor.value.field == "after"
        with pytest.raises(InvalidInput) as wrong_mean:
            small.ordered_candidates(["u1", "u2"], CONSENSUS, after=Candidate("a", ("u1", "u2"), 1.5))
        assert wrong_mean.value.field == "after"
        with pytest.raises(InvalidInput) as limit:
            small.ordered_candidates(["u1"], CONSENSUS, limit=-1)
        assert limit.value.field == "limit"

    def test_indexing_is_an_idempotent_upsert(self, small):
        assert small.index_items([item("b", ("u4", "u4", "u5"), (0, 1, 1)), item("g", ())]) == 2
        assert small.index_items([item("g", ())]) == 1
        assert small.item_ids() == ["a", "b", "c", "d", "e", "f", "g"]
        assert small.unit_counts() == {"u1": 2, "u2": 1, "u3": 2, "u4": 2, "u5": 1}
        assert small.items_with_units(["u4"]) == {"b": ["u4"], "d": ["u4"]}
        assert small.nearest(np.array([0, 1, 1]), 1)[0][0] == "b"

    def test_deleting_removes_items_from_every_query_and_is_idempotent(self, small):
        before = small.unit_counts()
        assert small.delete_items(["b", "zz-not-there", "b"]) == 1
        assert small.delete_items(["b"]) == 0
        assert "b" not in small.item_ids()
        assert all("b" not in small.items_with_units([u]) for u in before)
        assert sum(small.unit_counts().values()) < sum(before.values())
        assert all(i != "b" for i, _ in small.nearest(np.array([0, 1, 1]), 10))
        assert small.delete_items([]) == 0

    @pytest.mark.parametrize("bad", [
        item("z", ("u9",)),                           # unit outside the catalog
        item("z", ("u1",), (1, 0)),                   # wrong dimensions
        item("z", ("u1",), (0, 0, 0)),                # cosine undefined
        item("z", ("u1",), (math.nan, 0, 0)),
        item("", ("u1",)),
    ])
    def test_invalid_items_are_rejected_and_nothing_is_written(self, small, bad):
        with pytest.raises(ValueError):
            small.index_items([item("y", ("u1",)), bad])
        assert small.item_ids() == ["a", "b", "c", "d", "e", "f"]

    def test_nearest_is_exact_cosine_with_ties_by_id(self, small):
        top = small.nearest(np.array([2.0, 0.0, 0.0]), 3)
        # a (1,0,0): 1; c (1,1,0) and e (1,0,1): 1/sqrt(2) each, tie broken by id.
        assert [i for i, _ in top] == ["a", "c", "e"]
        assert [s for _, s in top] == pytest.approx([1.0, 2 ** -0.5, 2 ** -0.5], abs=1e-6)
        everything = small.nearest(np.array([1.0, 0.0, 0.0]), 50)
        assert [i for i, _ in everything] == ["a", "c", "e", "b", "d", "f"]
        assert everything[-1][1] == pytest.approx(-1.0, abs=1e-6)
        assert small.nearest(np.array([1.0, 0.0, 0.0]), 0) == []

    def test_bad_knn_queries_are_rejected(self, small):
        for vector in ([1.0, 0.0], [0.0, 0.0, 0.0]):
            with pytest.raises(ValueError):
                small.nearest(np.array(vector), 3)
        with pytest.raises(ValueError):
            small.nearest(np.array([1.0, 0.0, 0.0]), -1)

    def test_empty_index(self, make_index):
        index = make_index(UNITS, 3)
        assert index.item_ids() == []
        assert index.unit_counts() == dict.fromkeys(UNITS, 0)
        assert index.ordered_candidates(["u1"], CONSENSUS) == []
        assert index.nearest(np.array([1.0, 0.0, 0.0]), 5) == []

    # One contract, many adapter subclasses: each runs it from its own class (differing executors).
    @settings(max_examples=40, deadline=None,
              suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.differing_executors])
    @given(data=st.data())
    def test_candidate_order_equals_the_core_order_on_random_indexes(self, make_index, data):
        units = [f"u{i}" for i in range(8)]
        n_items = data.draw(st.integers(1, 30), label="items")
        members = [tuple(data.draw(st.lists(st.sampled_from(units), max_size=4, unique=True), label=f"item {i}"))
                   for i in range(n_items)]
        judges = data.draw(st.integers(1, 4), label="judges")
        rankings = {f"j{j}": data.draw(st.permutations(units), label=f"judge {j}")[:6] for j in range(judges)}
        k1 = data.draw(st.integers(1, 8), label="k1")
        votes = aggregate_votes(rankings, units, k1)
        index = make_index(units, 3)
        index.index_items([item(f"i{i:02d}", m, (1.0, float(i), 0.0)) for i, m in enumerate(members)])
        shared = {f"i{i:02d}": [u for u in votes.units if u in m] for i, m in enumerate(members)}
        expected = order_candidates({i: u for i, u in shared.items() if u}, votes.consensus)
        got = index.ordered_candidates(list(votes.units), votes.consensus)
        assert got == expected
        if len(got) > 2:
            page = index.ordered_candidates(list(votes.units), votes.consensus, limit=2, after=got[0])
            assert page == got[1:3]
