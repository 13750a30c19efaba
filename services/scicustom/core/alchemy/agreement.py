"""Agreement statistics of AlchemyBench section 4: Pearson and Spearman correlation of a metric with
the expert consensus, and ICC(3,k) among experts (two-way mixed effects, consistency, mean of k
raters; Shrout & Fleiss 1979) with the F-test p-value."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from scipy import stats


@dataclass(frozen=True)
class Correlation:
    r: float | None
    p: float | None
    n: int


@dataclass(frozen=True)
class ICC:
    icc: float | None
    f: float | None
    df1: int
    df2: int
    p: float | None
    n_targets: int
    n_raters: int


def _finite(value: float) -> float | None:
    return float(value) if np.isfinite(value) else None


def pearson(x: Sequence[float], y: Sequence[float]) -> Correlation:
    if len(x) != len(y):
        raise ValueError("x and y differ in length")
    if len(x) < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return Correlation(None, None, len(x))  # undefined for constant input
    result = stats.pearsonr(x, y)
    return Correlation(_finite(result.statistic), _finite(result.pvalue), len(x))


def spearman(x: Sequence[float], y: Sequence[float]) -> Correlation:
    if len(x) != len(y):
        raise ValueError("x and y differ in length")
    if len(x) < 3 or np.ptp(x) == 0 or np.ptp(y) == 0:
        return Correlation(None, None, len(x))
    result = stats.spearmanr(x, y)
    return Correlation(_finite(float(result.statistic)), _finite(float(result.pvalue)), len(x))


def icc3k(ratings: np.ndarray) -> ICC:
    """ICC(3,k) of an n_targets x k_raters matrix with no missing cells.

    ICC(3,k) = (MS_rows - MS_error) / MS_rows; F = MS_rows / MS_error on (n-1, (n-1)(k-1)) df.
    """
    y = np.asarray(ratings, dtype=float)
    if y.ndim != 2 or np.isnan(y).any():
        raise ValueError("ratings must be a complete 2-D matrix")
    n, k = y.shape
    df1, df2 = n - 1, (n - 1) * (k - 1)
    if n < 2 or k < 2:
        return ICC(None, None, df1, df2, None, n, k)
    grand = y.mean()
    ss_rows = k * float(((y.mean(axis=1) - grand) ** 2).sum())
    ss_cols = n * float(((y.mean(axis=0) - grand) ** 2).sum())
    ss_error = float(((y - grand) ** 2).sum()) - ss_rows - ss_cols
    ms_rows, ms_error = ss_rows / df1, ss_error / df2
    if ms_rows == 0:
        return ICC(None, None, df1, df2, None, n, k)
    icc = (ms_rows - ms_error) / ms_rows
    if ms_error <= 0:
        return ICC(icc, None, df1, df2, 0.0, n, k)
    f = ms_rows / ms_error
    return ICC(icc, f, df1, df2, float(stats.f.sf(f, df1, df2)), n, k)
