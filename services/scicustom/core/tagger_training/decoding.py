"""From per-unit scores to a tag list: thresholds, at most 8 units, Non-Scientific alone."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from scicustom.ports import UnitScore

MAX_UNITS = 8


def selected_columns(scores: np.ndarray, thresholds: np.ndarray, non_scientific: int | None,
                     max_units: int = MAX_UNITS) -> list[list[int]]:
    """Per row, the chosen columns best first: those clearing their threshold, at most `max_units`;
    the best column when none clears; only Non-Scientific when it is the best."""
    if scores.ndim != 2 or scores.shape[1] != thresholds.shape[0]:
        raise ValueError("scores must be (texts, units) with one threshold per unit")
    k = min(max_units + 1, scores.shape[1])
    # argpartition then a stable sort of the few survivors: cheap for 642 units, ties by column.
    part = np.argpartition(-scores, k - 1, axis=1)[:, :k] if k < scores.shape[1] else \
        np.tile(np.arange(scores.shape[1]), (scores.shape[0], 1))
    rows: list[list[int]] = []
    for row, cols in zip(scores, part, strict=True):
        order = sorted(cols.tolist(), key=lambda c: (-row[c], c))
        best = order[0]
        if best == non_scientific:
            rows.append([best])
            continue
        kept = [c for c in order if c != non_scientific and row[c] >= thresholds[c]][:max_units]
        rows.append(kept or [best])
    return rows


def decode(scores: np.ndarray, thresholds: np.ndarray, unit_ids: Sequence[str], non_scientific: int | None,
           max_units: int = MAX_UNITS) -> list[list[UnitScore]]:
    return [[UnitScore(unit_ids[c], round(float(scores[r, c]), 6)) for c in cols]
            for r, cols in enumerate(selected_columns(scores, thresholds, non_scientific, max_units))]
