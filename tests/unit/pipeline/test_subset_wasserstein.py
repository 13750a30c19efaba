"""W1 against many subsets from one sort: equal to scipy's per-subset wasserstein_distance."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import wasserstein_distance

from scicustom.core.build.subset_wasserstein import SortedValues, w1_to_subsets


@settings(max_examples=200, deadline=None)
@given(values=st.lists(st.floats(-1e3, 1e3, allow_nan=False), min_size=1, max_size=60),
       seed=st.integers(0, 2**32 - 1), count=st.integers(1, 5), data=st.data())
def test_matches_scipy_on_subsets_of_the_values(values: list[float], seed: int, count: int,
                                                data: st.DataObject) -> None:
    u = np.array(values)
    size = data.draw(st.integers(1, len(u)))
    rng = np.random.default_rng(seed)
    subsets = np.sort(np.stack([u[rng.choice(len(u), size, replace=False)] for _ in range(count)]), axis=1)
    got = w1_to_subsets(SortedValues.of(u), subsets)
    expected = [wasserstein_distance(u, s) for s in subsets]
    assert got == pytest.approx(expected, abs=1e-9 * (1 + np.abs(u).max()))


def test_the_whole_set_and_ties_give_zero():
    u = np.array([3.0, 1.0, 1.0, 2.0, 3.0, 3.0])
    assert w1_to_subsets(SortedValues.of(u), np.sort(u)[None, :])[0] == pytest.approx(0.0, abs=1e-12)
    constant = np.full(10, 4.5)
    assert w1_to_subsets(SortedValues.of(constant), constant[None, :3])[0] == 0.0


def test_one_value_against_the_set():
    u = np.array([0.0, 1.0, 2.0, 3.0])
    # W1 between {0,1,2,3} and {0}: the mean distance to 0.
    assert w1_to_subsets(SortedValues.of(u), np.array([[0.0]]))[0] == pytest.approx(1.5)
