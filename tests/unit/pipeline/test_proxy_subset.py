from __future__ import annotations

import numpy as np
from scipy.stats import wasserstein_distance

from scicustom.core.build.proxy_subset import normalised_scores, select_proxy_subset


def _data(n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    emb = rng.normal(size=(n, 8)).astype(np.float32)
    hardness = np.exp(rng.normal(2.0, 1.0, size=n))
    quality = rng.normal(50, 20, size=n)
    return emb, hardness, quality


def test_small_sets_are_kept_whole():
    emb, h, q = _data(30)
    result = select_proxy_subset(emb, h, q, k2=100, n_subsets=10, seed=0)
    assert result.indices == tuple(range(30)) and result.w1_total == 0.0


def test_one_item_per_cluster_and_deterministic():
    emb, h, q = _data(400)
    a = select_proxy_subset(emb, h, q, k2=40, n_subsets=20, seed=7)
    b = select_proxy_subset(emb, h, q, k2=40, n_subsets=20, seed=7)
    assert a == b
    assert len(a.indices) == 40 == len(set(a.indices))
    assert list(a.indices) == sorted(a.indices)


def test_best_of_more_subsets_is_never_worse_and_beats_a_random_subset():
    emb, h, q = _data(600, seed=3)
    few = select_proxy_subset(emb, h, q, k2=50, n_subsets=1, seed=1)
    many = select_proxy_subset(emb, h, q, k2=50, n_subsets=100, seed=1)
    assert many.w1_total <= few.w1_total
    hn, qn = normalised_scores(h, q)
    subset = np.array(many.indices)
    assert many.w1_hardness == wasserstein_distance(hn, hn[subset])
    assert many.w1_quality == wasserstein_distance(qn, qn[subset])


def test_normalisation_puts_both_scores_on_unit_scale():
    _, h, q = _data(500)
    hn, qn = normalised_scores(h, q)
    assert abs(hn.std() - 1) < 1e-9 and abs(qn.std() - 1) < 1e-9
