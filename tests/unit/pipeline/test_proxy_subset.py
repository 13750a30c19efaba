from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import wasserstein_distance

from scicustom.core.build.proxy_subset import EXACT_MAX_ROWS, normalised_scores, select_proxy_subset


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


# --- selector version 2: the scalable procedure above EXACT_MAX_ROWS (forced here with exact_max_rows=0) ---

def _original(emb: np.ndarray, h: np.ndarray, q: np.ndarray, k2: int, n_subsets: int, seed: int) -> tuple[int, ...]:
    """The procedure every build up to EXACT_MAX_ROWS rows keeps, written out independently."""
    from sklearn.cluster import KMeans

    hn, qn = normalised_scores(h, q)
    labels = KMeans(n_clusters=k2, random_state=seed, n_init=3).fit_predict(emb.astype(np.float64))
    members = [m for m in (np.flatnonzero(labels == c) for c in range(k2)) if len(m)]
    rng = np.random.default_rng(seed)
    best: tuple[float, np.ndarray] | None = None
    for _ in range(n_subsets):
        subset = np.sort(np.array([m[rng.integers(len(m))] for m in members]))
        total = wasserstein_distance(hn, hn[subset]) + wasserstein_distance(qn, qn[subset])
        if best is None or total < best[0]:
            best = (total, subset)
    assert best is not None
    return tuple(int(i) for i in best[1])


def test_inputs_up_to_the_threshold_keep_the_original_procedure():
    emb, h, q = _data(500, seed=5)
    assert EXACT_MAX_ROWS >= 5000  # today's builds (hundreds to a few thousand candidates) stay unchanged
    assert select_proxy_subset(emb, h, q, k2=30, n_subsets=15, seed=3).indices == _original(emb, h, q, 30, 15, 3)


def test_scalable_path_is_deterministic_per_seed_and_one_item_per_cluster():
    emb, h, q = _data(3000, seed=2)
    a = select_proxy_subset(emb, h, q, k2=50, n_subsets=40, seed=11, exact_max_rows=0)
    b = select_proxy_subset(emb, h, q, k2=50, n_subsets=40, seed=11, exact_max_rows=0)
    other = select_proxy_subset(emb, h, q, k2=50, n_subsets=40, seed=12, exact_max_rows=0)
    assert a == b and a != other
    assert len(a.indices) == a.n_clusters == len(set(a.indices)) and a.n_clusters <= 50
    assert list(a.indices) == sorted(a.indices) and all(0 <= i < 3000 for i in a.indices)
    hn, qn = normalised_scores(h, q)
    subset = np.array(a.indices)
    assert abs(a.w1_hardness - wasserstein_distance(hn, hn[subset])) < 1e-9
    assert abs(a.w1_quality - wasserstein_distance(qn, qn[subset])) < 1e-9


def test_scalable_path_keeps_the_best_of_the_candidate_subsets():
    emb, h, q = _data(2000, seed=4)
    few = select_proxy_subset(emb, h, q, k2=40, n_subsets=1, seed=1, exact_max_rows=0)
    many = select_proxy_subset(emb, h, q, k2=40, n_subsets=100, seed=1, exact_max_rows=0)
    assert many.w1_total <= few.w1_total


def test_scalable_path_with_duplicate_rows_and_empty_clusters():
    rng = np.random.default_rng(0)
    identical = np.ones((300, 4), dtype=np.float32)
    _, h, q = _data(300)
    result = select_proxy_subset(identical, h, q, k2=20, n_subsets=5, seed=0, exact_max_rows=0)
    assert len(result.indices) == result.n_clusters >= 1  # every centre lands on the one point
    three_points = np.repeat(rng.normal(size=(3, 4)), 100, axis=0)
    result = select_proxy_subset(three_points, h, q, k2=20, n_subsets=5, seed=0, exact_max_rows=0)
    assert result.n_clusters == 3 == len(result.indices)  # 17 clusters stay empty and are skipped
    assert len({int(i) // 100 for i in result.indices}) == 3


def test_scalable_path_leaves_small_sets_whole_and_reads_float64():
    emb, h, q = _data(40)
    assert select_proxy_subset(emb, h, q, k2=40, n_subsets=5, seed=0, exact_max_rows=0).indices == tuple(range(40))
    emb, h, q = _data(800)
    as64 = select_proxy_subset(emb.astype(np.float64), h, q, k2=25, n_subsets=10, seed=0, exact_max_rows=0)
    assert as64 == select_proxy_subset(emb, h, q, k2=25, n_subsets=10, seed=0, exact_max_rows=0)


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 400), dims=st.integers(1, 6), k2=st.integers(1, 30), subsets=st.integers(1, 8),
       seed=st.integers(0, 2**32 - 1), distinct=st.integers(1, 50))
def test_scalable_path_invariants(n: int, dims: int, k2: int, subsets: int, seed: int, distinct: int) -> None:
    rng = np.random.default_rng(seed)
    points = rng.normal(size=(distinct, dims)).astype(np.float32)
    emb = points[rng.integers(distinct, size=n)]  # duplicates whenever n > distinct
    h = np.exp(rng.normal(size=n))
    q = rng.integers(0, 5, size=n).astype(np.float64)  # many ties
    result = select_proxy_subset(emb, h, q, k2, subsets, seed, exact_max_rows=0)
    assert result == select_proxy_subset(emb, h, q, k2, subsets, seed, exact_max_rows=0)
    if n <= k2:
        assert result.indices == tuple(range(n))
        return
    assert 1 <= len(result.indices) == result.n_clusters <= min(k2, distinct)
    assert list(result.indices) == sorted(set(result.indices)) and result.indices[-1] < n
    hn, qn = normalised_scores(h, q)
    subset = np.array(result.indices)
    assert result.w1_hardness == pytest.approx(wasserstein_distance(hn, hn[subset]), abs=1e-9)
    assert result.w1_quality == pytest.approx(wasserstein_distance(qn, qn[subset]), abs=1e-9)
