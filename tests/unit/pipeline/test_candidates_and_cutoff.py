from __future__ import annotations

import math

from hypothesis import given
from hypothesis import strategies as st

from scicustom.core.build.candidates import order_candidates
from scicustom.core.build.cutoff import binary_search_cutoff, greedy_scan


def test_order_by_shared_count_then_mean_rank_then_id():
    consensus = {"u1": 1.0, "u2": 2.0, "u3": 5.0}
    shared = {"x": ["u3"], "y": ["u1"], "z": ["u1", "u3"], "w": ["u2", "u1"], "v": ["u1"]}
    order = order_candidates(shared, consensus)
    assert [c.item_id for c in order] == ["w", "z", "v", "y", "x"]
    assert order[0].mean_rank == 1.5 and order[0].shared_units == ("u1", "u2")


def _oracle(n_relevant: int, n_judges: int = 3):
    def vote(position: int, item_id: str) -> dict[str, bool]:
        return {f"j{k}": position < n_relevant for k in range(n_judges)}
    return vote


def test_cutoff_includes_the_last_relevant_position():
    ids = [f"i{k}" for k in range(10)]
    result = binary_search_cutoff(ids, _oracle(4))
    assert result.cutoff == 3 and result.n_selected == 4


def test_no_relevant_item_selects_nothing():
    result = binary_search_cutoff([f"i{k}" for k in range(7)], _oracle(0))
    assert result.cutoff == -1 and result.n_selected == 0


def test_strict_majority_is_needed():
    ids = ["a", "b", "c"]
    # 2 of 4 judges is not a strict majority
    result = binary_search_cutoff(ids, lambda p, i: {"j1": True, "j2": True, "j3": False, "j4": False})
    assert result.n_selected == 0
    result = binary_search_cutoff(ids, lambda p, i: {"j1": True, "j2": True, "j3": False})
    assert result.n_selected == 3


def test_probes_are_recorded_with_votes():
    result = binary_search_cutoff([f"i{k}" for k in range(15)], _oracle(5))
    assert [p.position for p in result.probes] == [7, 3, 5, 4]
    assert result.probes[1].votes == {"j0": True, "j1": True, "j2": True}
    assert all(p.item_id == f"i{p.position}" for p in result.probes)


@given(st.integers(0, 3000), st.data())
def test_monotone_relevance_is_found_exactly_in_log_probes(n, data):
    relevant = data.draw(st.integers(0, n))
    ids = [str(k) for k in range(n)]
    result = binary_search_cutoff(ids, _oracle(relevant))
    assert result.n_selected == relevant
    assert len(result.probes) <= math.ceil(math.log2(n + 1))


def test_greedy_scan_keeps_first_k_relevant():
    kept, probes = greedy_scan([str(k) for k in range(10)],
                               lambda p, i: {"a": p % 2 == 0, "b": p % 2 == 0, "c": False}, 3)
    assert kept == [0, 2, 4]
    assert len(probes) == 5


def test_equal_mean_ranks_tie_exactly_whatever_the_float_order():
    # 7/3 + 4 and 4 + 7/3 differ in the last bit as floats; the ids must decide, not rounding.
    consensus = {"a": 7 / 3, "b": 4.0, "c": 5 / 3, "d": 14 / 3}
    order = order_candidates({"y": ["a", "b"], "x": ["c", "d"]}, consensus)
    assert [c.item_id for c in order] == ["x", "y"]
    assert order[0].mean_rank == order[1].mean_rank
