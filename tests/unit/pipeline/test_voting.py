from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scicustom.core.build.vote import aggregate_votes
from scicustom.core.errors import InvalidInput

CANDS = ["a", "b", "c", "d", "e"]


def test_average_rank_with_missing_units_ranked_last_plus_one():
    result = aggregate_votes({"j1": ["a", "b"], "j2": ["b", "c"], "j3": ["b", "a", "e"]}, CANDS, k1=3)
    missing = len(CANDS) + 1
    assert result.consensus["a"] == pytest.approx((1 + missing + 2) / 3)
    assert result.consensus["b"] == pytest.approx((2 + 1 + 1) / 3)
    assert result.consensus["c"] == pytest.approx((missing + 2 + missing) / 3)
    assert result.consensus["d"] == missing
    assert result.consensus["e"] == pytest.approx((missing + missing + 3) / 3)
    # b = 4/3, a = 3, c = 14/3, e = 5: c beats e
    assert result.units == ("b", "a", "c")


def test_top_k1_and_stable_tie_break_on_candidate_order():
    result = aggregate_votes({"j1": ["c", "a"], "j2": ["a", "c"]}, CANDS, k1=1)
    assert result.consensus["a"] == result.consensus["c"] == 1.5
    assert result.units == ("a",)


def test_unknown_and_repeated_units_are_ignored():
    result = aggregate_votes({"j1": ["zzz", "a", "a", "b"]}, CANDS, k1=10)
    assert result.per_judge["j1"] == ["a", "b"]
    assert result.units == ("a", "b")  # units nobody ranked are never selected


def test_no_judges_is_an_error():
    with pytest.raises(InvalidInput, match="jury"):
        aggregate_votes({}, CANDS, k1=3)


@given(st.lists(st.permutations(CANDS), min_size=1, max_size=5), st.integers(1, 5))
def test_unanimous_first_choice_always_wins(rankings, k1):
    fixed = [["d", *[u for u in r if u != "d"]] for r in rankings]
    result = aggregate_votes({f"j{i}": r for i, r in enumerate(fixed)}, CANDS, k1)
    assert result.units[0] == "d"
    assert len(result.units) == min(k1, len(CANDS))
