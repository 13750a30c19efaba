from __future__ import annotations

import numpy as np
import pytest

from scicustom.core.alchemy.agreement import icc3k, pearson, spearman

# Shrout & Fleiss (1979), Table 2: six targets rated by four judges.
SHROUT_FLEISS = np.array([[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]])


def test_icc3k_by_hand():
    # T = 127, N = 24. SS_rows = 2913/4 - 127^2/24 = 1349/24, SS_cols = 4617/6 - 127^2/24 = 2339/24,
    # SS_total = 841 - 127^2/24 = 4055/24, SS_error = 367/24.
    # MS_rows = (1349/24)/5 = 1349/120, MS_error = (367/24)/15 = 367/360.
    # ICC(3,k) = 1 - MS_error/MS_rows = 1 - 367/4047 = 3680/4047 (published: 0.91).
    result = icc3k(SHROUT_FLEISS)
    assert result.icc == pytest.approx(3680 / 4047, rel=1e-12)
    assert result.f == pytest.approx(4047 / 367, rel=1e-12)
    assert (result.df1, result.df2, result.n_targets, result.n_raters) == (5, 15, 6, 4)
    assert 0 < result.p < 1e-3


def test_icc3k_ignores_a_constant_rater_offset():
    shifted = SHROUT_FLEISS + np.array([0, 3, -1, 2])
    assert icc3k(shifted).icc == pytest.approx(icc3k(SHROUT_FLEISS).icc)


def test_icc3k_degenerate_inputs():
    assert icc3k(np.ones((4, 3))).icc is None  # no variance between targets
    assert icc3k(np.array([[1, 2, 3]])).icc is None
    perfect = np.array([[1, 1], [2, 2], [3, 3]])
    assert icc3k(perfect).icc == 1.0 and icc3k(perfect).p == 0.0
    with pytest.raises(ValueError):
        icc3k(np.array([[1, np.nan], [2, 3]]))


def test_correlations_by_hand():
    x, y = [1, 2, 3, 4], [2, 4, 5, 9]
    # dx = (-1.5, -0.5, 0.5, 1.5), dy = (-3, -1, 0, 4): r = 11 / sqrt(5 * 26)
    assert pearson(x, y).r == pytest.approx(11 / np.sqrt(5 * 26))
    assert spearman(x, y).r == pytest.approx(1.0)
    assert spearman([1, 2, 3, 4], [4, 3, 1, 2]).r == pytest.approx(1 - 6 * (9 + 1 + 4 + 4) / (4 * 15))
    assert pearson([1, 2, 3], [5, 5, 5]).r is None and pearson([1, 2], [1, 2]).n == 2
