"""Proxy subset selection (SciCustom section 2.5 and Appendix A, following SubLIME).

Cluster the embeddings of D_r into K2 clusters, draw N one-per-cluster candidate subsets with a
seeded generator, and keep the subset minimising W1(hardness) + W1(quality) against D_r.

The two scores live on different scales (perplexity is heavy-tailed, Flesch is roughly 0-100), so
unlike the paper's released code we compare them on normalised scales: hardness as log-perplexity
(the mean answer NLL), then both divided by their standard deviation over D_r.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import wasserstein_distance
from sklearn.cluster import KMeans


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
                        k2: int, n_subsets: int, seed: int) -> ProxyResult:
    n = len(hardness)
    if not len(embeddings) == n == len(quality):
        raise ValueError("embeddings, hardness and quality must have one row per item")
    if n == 0:
        return ProxyResult((), 0.0, 0.0, 0, 0)
    h, q = normalised_scores(np.asarray(hardness, dtype=np.float64), quality)
    if n <= k2:  # nothing to cut: D_r itself is the proxy
        return ProxyResult(tuple(range(n)), 0.0, 0.0, 0, 0)
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
