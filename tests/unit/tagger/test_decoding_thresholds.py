from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from scicustom.core.tagger_training.decoding import decode, selected_columns
from scicustom.core.tagger_training.thresholds import calibrate_global, calibrate_per_unit

IDS = ["a", "b", "c", "d", "ns"]


def test_units_above_threshold_best_first_and_fallback_to_best() -> None:
    scores = np.array([[0.9, 0.2, 0.7, 0.1, 0.0],
                       [0.3, 0.4, 0.1, 0.2, 0.1]], dtype=np.float32)
    out = decode(scores, np.full(5, 0.5), IDS, non_scientific=4)
    assert [[s.unit_id for s in row] for row in out] == [["a", "c"], ["b"]]
    assert out[0][0].score == pytest.approx(0.9)


def test_non_scientific_is_alone_when_best_and_dropped_otherwise() -> None:
    scores = np.array([[0.6, 0.1, 0.1, 0.1, 0.95],
                       [0.9, 0.1, 0.1, 0.1, 0.8]], dtype=np.float32)
    chosen = selected_columns(scores, np.full(5, 0.5), non_scientific=4)
    assert chosen == [[4], [0]]


def test_at_most_max_units_and_per_unit_thresholds() -> None:
    scores = np.tile(np.linspace(0.99, 0.9, 12, dtype=np.float32), (1, 1))
    assert len(selected_columns(scores, np.full(12, 0.5), None, max_units=8)[0]) == 8
    thresholds = np.array([0.95, 0.1, 0.1, 0.1, 0.1])
    scores = np.array([[0.9, 0.3, 0.0, 0.0, 0.0]], dtype=np.float32)
    assert selected_columns(scores, thresholds, None) == [[1]]


def test_shape_mismatch_is_rejected() -> None:
    with pytest.raises(ValueError):
        selected_columns(np.zeros((2, 3)), np.zeros(4), None)


@settings(max_examples=80, deadline=None)
@given(scores=arrays(np.float32, (6, 5), elements=st.floats(0, 1, width=32)), t=st.floats(0.05, 0.95))
def test_every_row_gets_between_one_and_eight_units(scores: np.ndarray, t: float) -> None:
    for row in selected_columns(scores, np.full(5, t, dtype=np.float32), non_scientific=4):
        assert 1 <= len(row) <= 8
        assert len(set(row)) == len(row)
        assert 4 not in row or row == [4]


def test_global_threshold_separates_a_clear_case() -> None:
    gold = np.array([[1, 0, 0], [0, 1, 0], [1, 1, 0]], dtype=bool)
    scores = np.array([[0.8, 0.3, 0.1], [0.2, 0.7, 0.1], [0.6, 0.65, 0.2]], dtype=np.float32)
    t, f1 = calibrate_global(scores, gold, None, grid=np.array([0.1, 0.25, 0.4, 0.5, 0.7, 0.9]))
    assert f1 == pytest.approx(1.0)
    assert t == pytest.approx(0.4)  # the lowest threshold reaching F1 1 (0.25 admits 0.3)


def test_global_calibration_needs_positives() -> None:
    with pytest.raises(ValueError):
        calibrate_global(np.zeros((2, 2)), np.zeros((2, 2), dtype=bool), None)


def test_per_unit_thresholds_shrink_towards_global() -> None:
    rng = np.random.default_rng(0)
    n = 200
    gold = np.zeros((n, 2), dtype=bool)
    gold[:100, 0] = True
    gold[:2, 1] = True
    scores = np.zeros((n, 2), dtype=np.float32)
    scores[:, 0] = np.where(gold[:, 0], 0.85, 0.75) + rng.normal(0, 0.01, n)  # separable at ~0.8
    scores[:, 1] = rng.uniform(0, 1, n)
    thresholds = calibrate_per_unit(scores, gold, global_threshold=0.5, min_positives=5, shrinkage=20.0)
    own = 0.8  # the grid point separating unit 0
    assert thresholds[0] == pytest.approx((100 * own + 20 * 0.5) / 120, abs=0.03)
    assert thresholds[1] == pytest.approx(0.5)  # only 2 positives: keeps the global threshold
