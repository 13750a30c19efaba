"""Threshold calibration on validation data: one global threshold, then per-unit thresholds
shrunk towards it (a unit with few validation positives keeps nearly the global one)."""

from __future__ import annotations

import numpy as np

from scicustom.core.tagger_training.decoding import MAX_UNITS, selected_columns

DEFAULT_GRID = np.round(np.arange(0.05, 0.96, 0.025), 4)


def _micro_f1(chosen: list[list[int]], gold: np.ndarray) -> float:
    tp = sum(int(gold[r, cols].sum()) for r, cols in enumerate(chosen))
    n_pred = sum(len(c) for c in chosen)
    n_gold = int(gold.sum())
    if tp == 0:
        return 0.0
    p, r = tp / n_pred, tp / n_gold
    return 2 * p * r / (p + r)


def calibrate_global(scores: np.ndarray, gold: np.ndarray, non_scientific: int | None,
                     grid: np.ndarray = DEFAULT_GRID, max_units: int = MAX_UNITS) -> tuple[float, float]:
    """(threshold, micro F1) maximising micro F1 of the full decoding rule; ties -> lower threshold."""
    if scores.shape != gold.shape or not gold.any():
        raise ValueError("scores and gold must have one shape and gold at least one positive")
    best_t, best_f1 = float(grid[0]), -1.0
    for t in grid:
        chosen = selected_columns(scores, np.full(scores.shape[1], t), non_scientific, max_units)
        f1 = _micro_f1(chosen, gold)
        if f1 > best_f1 + 1e-12:
            best_t, best_f1 = float(t), f1
    return best_t, best_f1


def calibrate_per_unit(scores: np.ndarray, gold: np.ndarray, global_threshold: float,
                       grid: np.ndarray = DEFAULT_GRID, min_positives: int = 5,
                       shrinkage: float = 20.0) -> np.ndarray:
    """Per column: the threshold maximising that unit's F1, pulled towards the global one with
    weight `shrinkage` against its number of positives; columns with < `min_positives` get the global."""
    out = np.full(scores.shape[1], global_threshold, dtype=np.float32)
    positives = gold.sum(axis=0)
    for u in np.flatnonzero(positives >= min_positives):
        column, truth = scores[:, u], gold[:, u].astype(bool)
        predicted = column[:, None] >= grid[None, :]
        tp = (predicted & truth[:, None]).sum(axis=0)
        fp = (predicted & ~truth[:, None]).sum(axis=0)
        fn = truth.sum() - tp
        f1 = np.where(tp > 0, 2 * tp / np.maximum(2 * tp + fp + fn, 1), 0.0)
        own = float(grid[int(np.argmax(f1))])
        n = float(positives[u])
        out[u] = (n * own + shrinkage * global_threshold) / (n + shrinkage)
    return out
