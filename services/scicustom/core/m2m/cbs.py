"""Composite Battery Science Score: the weighted mean of the rounded metric aggregates.

As the reference: the sum runs in the order rcf, hpa, msi, sns, ip, pdq over the metrics present (a row
whose --group-by group was too small for sns has none), starting from 0.0, and is divided by the sum of
the weights present, accumulated in the same order; the result is rounded with Python's `round`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from scicustom.core.m2m.text_primitives import python_round

METRICS = ("rcf", "hpa", "msi", "sns", "ip", "pdq")


def cbs_weights(weights: Mapping[str, Mapping[str, float]]) -> dict[str, float]:
    return {metric: float(weights["cbs"][f"{metric}_aggregate"]) for metric in METRICS}


def composite(aggregates: Mapping[str, float | None], weights: Mapping[str, float], decimals: int) -> float:
    """One row's cbs from its rounded aggregates (None: metric absent)."""
    score = 0.0
    total = 0.0
    for metric in METRICS:
        value = aggregates.get(metric)
        if value is not None:
            score += weights[metric] * float(value)
            total += weights[metric]
    return round(score / total if total > 0 else 0.0, decimals)


def composite_columns(aggregates: Mapping[str, Sequence[float | None] | np.ndarray], weights: Mapping[str, float],
                      decimals: int) -> list[float]:
    """cbs of every row; vectorised over rows, the same operations in the same order as `composite`."""
    n = len(next(iter(aggregates.values())))
    score = np.zeros(n)
    total = np.zeros(n)
    for metric in METRICS:
        column = aggregates.get(metric)
        if column is None:
            continue
        values = np.array([np.nan if v is None else v for v in column], dtype=np.float64)
        present = ~np.isnan(values)
        # Adding 0.0 for an absent metric leaves the running sums exactly as skipping it would.
        score = score + np.where(present, weights[metric] * np.nan_to_num(values), 0.0)
        total = total + np.where(present, weights[metric], 0.0)
    ratio = np.divide(score, total, out=np.zeros(n), where=total > 0)
    return python_round(ratio, decimals)
