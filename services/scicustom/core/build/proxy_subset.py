"""Proxy subset selection (SciCustom section 2.5 and Appendix A, following SubLIME).

Cluster the embeddings of D_r into K2 clusters, draw N one-per-cluster candidate subsets with a
seeded generator, and keep the subset minimising W1(hardness) + W1(quality) against D_r.

The two scores live on different scales (perplexity is heavy-tailed, Flesch is roughly 0-100), so
unlike the paper's released code we compare them on normalised scales: hardness as log-perplexity
(the mean answer NLL), then both divided by their standard deviation over D_r.

Two procedures, chosen by the size of D_r (selector version 2):
- up to EXACT_MAX_ROWS rows (every build of today's corpus: a few hundred to a few thousand
  candidates) the original one, unchanged, so those builds stay byte-identical: float64 scikit-learn
  KMeans (n_init=3) on every row, subsets drawn one cluster at a time, scipy's W1 per subset;
- above it, the scalable one: k-means fitted on a seeded sample and every row assigned to its
  nearest centre (`sampled_kmeans`), all subsets drawn in one call, W1 against every subset from one
  sort of D_r (`subset_wasserstein`). 200k x 384 takes seconds instead of ~190 s; benchmarks/
  bench_selector.py compares the W1 it reaches with the original's.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from scicustom.core.build.sampled_kmeans import sampled_kmeans_labels
from scicustom.core.build.subset_wasserstein import SortedValues, w1_to_subsets

EXACT_MAX_ROWS = 10_000


@dataclass(frozen=True)
class ProxyResult:
    indices: tuple[int, ...]      # positions into D_r, ascending
    w1_hardness: float            # on the normalised scale
    w1_quality: float
    n_clusters: int
    n_subsets: int

    @property
    def w1_total(self) -> float:
        return self.w1_hardness + self.w1_quality


def normalised_scores(hardness: np.ndarray, quality: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    h = np.log(np.maximum(hardness, 1.0))
    q = np.asarray(quality, dtype=np.float64)

    def scale(x: np.ndarray) -> np.ndarray:
        std = float(x.std())
        return x / std if std > 0 else x - x.mean()

    return scale(h), scale(q)


def select_proxy_subset(embeddings: np.ndarray, hardness: np.ndarray, quality: np.ndarray,
                        k2: int, n_subsets: int, seed: int, *,
                        exact_max_rows: int = EXACT_MAX_ROWS) -> ProxyResult:
    """`exact_max_rows`: the largest D_r given the original procedure (tests and the benchmark move it)."""
    n = len(hardness)
    if not len(embeddings) == n == len(quality):
        raise ValueError("embeddings, hardness and quality must have one row per item")
    if n == 0:
        return ProxyResult((), 0.0, 0.0, 0, 0)
    h, q = normalised_scores(np.asarray(hardness, dtype=np.float64), quality)
    if n <= k2:  # nothing to cut: D_r itself is the proxy
        return ProxyResult(tuple(range(n)), 0.0, 0.0, 0, 0)
    if n > exact_max_rows:
        return _scalable(embeddings, h, q, k2, n_subsets, seed)
    return _exact(embeddings, h, q, k2, n_subsets, seed)


def _exact(embeddings: np.ndarray, h: np.ndarray, q: np.ndarray, k2: int, n_subsets: int,
           seed: int) -> ProxyResult:
    # Imported here: scikit-learn and scipy take about a second to import, and only this path uses them.
    from scipy.stats import wasserstein_distance
    from sklearn.cluster import KMeans

    labels = KMeans(n_clusters=k2, random_state=seed, n_init=3).fit_predict(embeddings.astype(np.float64))
    members = [np.flatnonzero(labels == c) for c in range(k2)]
    members = [m for m in members if len(m)]
    rng = np.random.default_rng(seed)
    best: tuple[float, float, np.ndarray] | None = None
    for _ in range(n_subsets):
        subset = np.sort(np.array([m[rng.integers(len(m))] for m in members]))
        wh = float(wasserstein_distance(h, h[subset]))
        wq = float(wasserstein_distance(q, q[subset]))
        if best is None or wh + wq < best[0] + best[1]:
            best = (wh, wq, subset)
    assert best is not None
    return ProxyResult(tuple(int(i) for i in best[2]), best[0], best[1], len(members), n_subsets)


def _scalable(embeddings: np.ndarray, h: np.ndarray, q: np.ndarray, k2: int, n_subsets: int,
              seed: int) -> ProxyResult:
    labels = sampled_kmeans_labels(embeddings, k2, seed)
    order = np.argsort(labels, kind="stable")  # rows grouped by cluster, ascending within each
    sizes = np.bincount(labels, minlength=k2)
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))[sizes > 0]
    sizes = sizes[sizes > 0]
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, sizes, size=(n_subsets, len(sizes)))  # one row of each non-empty cluster
    subsets = np.sort(order[starts + picks], axis=1)
    wh = w1_to_subsets(SortedValues.of(h), np.sort(h[subsets], axis=1))
    wq = w1_to_subsets(SortedValues.of(q), np.sort(q[subsets], axis=1))
    best = int(np.argmin(wh + wq))  # the first of equal totals, as the one-at-a-time loop keeps
    return ProxyResult(tuple(int(i) for i in subsets[best]), float(wh[best]), float(wq[best]), len(sizes),
                       n_subsets)
