"""Accuracy with a percentile-bootstrap confidence interval, and the per-model summary.

The bootstrap resamples items with replacement. Every model's resamples are drawn from a fresh
generator with the same seed, so intervals are paired across models and do not depend on the
order models are evaluated in.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np

from scicustom.core.evaluation.run import ModelRun

_RESAMPLE_CELLS = 4_000_000  # bounds the memory of one block of resampled indices


def bootstrap_indices(n: int, resamples: int, seed: int) -> np.ndarray:
    """All resamples as one (resamples, n) index matrix; for tests and small inputs."""
    return np.vstack(list(_index_blocks(n, resamples, seed)))


def _index_blocks(n: int, resamples: int, seed: int) -> Iterator[np.ndarray]:
    rng = np.random.default_rng(seed)
    rows = max(1, _RESAMPLE_CELLS // max(1, n))
    for start in range(0, resamples, rows):
        yield rng.integers(0, n, size=(min(rows, resamples - start), n))


def interval_from_means(means: np.ndarray, confidence: float = 0.95) -> tuple[float, float]:
    tail = (1.0 - confidence) / 2.0 * 100.0
    low, high = np.percentile(means, [tail, 100.0 - tail])
    return float(low), float(high)


def bootstrap_interval(correct: Sequence[bool] | np.ndarray, resamples: int, seed: int,
                       confidence: float = 0.95) -> tuple[float, float]:
    outcomes = np.asarray(correct, dtype=np.float64)
    if outcomes.size == 0:
        raise ValueError("no outcomes")
    if resamples < 1:
        raise ValueError("resamples must be >= 1")
    means = np.concatenate([outcomes[block].mean(axis=1)
                            for block in _index_blocks(outcomes.size, resamples, seed)])
    return interval_from_means(means, confidence)


@dataclass(frozen=True)
class ModelScore:
    name: str
    accuracy: float
    ci_low: float
    ci_high: float
    n: int  # benchmark items; failed and unparsed ones count as wrong
    n_correct: int
    n_unparsed: int
    n_errors: int
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float

    def to_record(self) -> dict[str, object]:
        return {
            "accuracy": self.accuracy,
            "ci95": {"low": self.ci_low, "high": self.ci_high},
            "n": self.n, "n_correct": self.n_correct, "n_unparsed": self.n_unparsed,
            "n_errors": self.n_errors,
            "tokens": {"prompt": self.prompt_tokens, "completion": self.completion_tokens,
                       "total": self.prompt_tokens + self.completion_tokens},
            "cost_usd": round(self.cost_usd, 8),
        }


def score_run(run: ModelRun, item_ids: Sequence[str], resamples: int, seed: int) -> ModelScore:
    """Accuracy over all benchmark items, in benchmark order so that the bootstrap pairs items
    across models; an item without a response (its call failed) is wrong."""
    if not item_ids:
        raise ValueError("no items")
    correct = {r.item_id: r.correct for r in run.responses}
    outcomes = np.array([correct.get(item_id, False) for item_id in item_ids], dtype=bool)
    n_items = len(item_ids)
    low, high = bootstrap_interval(outcomes, resamples, seed)
    return ModelScore(
        name=run.name,
        accuracy=float(outcomes.mean()),
        ci_low=low,
        ci_high=high,
        n=n_items,
        n_correct=int(outcomes.sum()),
        n_unparsed=sum(r.chosen is None for r in run.responses),
        n_errors=n_items - len(run.responses),
        prompt_tokens=sum(r.prompt_tokens for r in run.responses),
        completion_tokens=sum(r.completion_tokens for r in run.responses),
        cost_usd=sum(r.cost_usd for r in run.responses),
    )
