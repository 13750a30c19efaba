"""The vectorised `python_round` returns what Python's `round` returns, value for value: the M2M
scores must equal the reference's, which rounds with `round`."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from scicustom.core.m2m.text_primitives import python_round


def _same(got: list[float], want: list[float]) -> bool:
    return all((math.isnan(g) and math.isnan(w)) or (g == w and math.copysign(1, g) == math.copysign(1, w))
               for g, w in zip(got, want, strict=True))


@pytest.mark.filterwarnings("error::RuntimeWarning")  # huge values overflow quietly, as `round` does
@given(st.lists(st.floats(allow_nan=True, allow_infinity=True), max_size=50), st.integers(0, 25))
def test_equals_round_on_any_floats(values: list[float], decimals: int) -> None:
    assert _same(python_round(np.array(values, dtype=np.float64), decimals), [round(v, decimals) for v in values])


@given(st.lists(st.integers(-10**6, 10**6), min_size=1, max_size=50), st.integers(0, 6))
def test_equals_round_at_exact_and_near_halves(numerators: list[int], decimals: int) -> None:
    # k + 0.5 over 10^d: decimal halves, where rint and round could part; and their float neighbours.
    halves = [(k + 0.5) / 10**decimals for k in numerators]
    values = [v for h in halves for v in (h, math.nextafter(h, math.inf), math.nextafter(h, -math.inf))]
    assert _same(python_round(np.array(values), decimals), [round(v, decimals) for v in values])


def test_scores_in_the_unit_interval_with_four_decimals() -> None:
    values = np.random.default_rng(7).random(20000)
    assert python_round(values, 4) == [round(float(v), 4) for v in values]
