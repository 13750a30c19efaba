"""k-means for D_r at corpus scale: centres fitted on a seeded sample, then every row assigned.

Fitting float64 KMeans (n_init=3) on all 200k x 384 rows took ~190 s on 2 cores. The centres of
k clusters are well estimated from a few dozen rows per cluster, so Lloyd runs on a seeded sample
(k-means++ seeding, a few restarts, the lowest sample inertia wins), in float32, and the full set
is only read once more, in chunks, to label each row with its nearest centre (one matmul a chunk,
so no second full-size copy of the embeddings is made). Deterministic for a seed.
"""

from __future__ import annotations

import numpy as np
from threadpoolctl import threadpool_limits

ROWS_PER_CLUSTER = 40  # sample size = k * this, at least MIN_SAMPLE rows
MIN_SAMPLE = 4096
RESTARTS = 2
MAX_ITERATIONS = 50
ASSIGN_CHUNK_ROWS = 8192


def squared_distances(rows: np.ndarray, row_norms: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """|x - c|^2 for each row and centre, as |x|^2 - 2 x.c + |c|^2 (one matmul)."""
    distances: np.ndarray = row_norms[:, None] - 2.0 * (rows @ centres.T) + squared_norms(centres)[None, :]
    return distances


def squared_norms(rows: np.ndarray) -> np.ndarray:
    norms: np.ndarray = np.einsum("ij,ij->i", rows, rows)
    return norms


def kmeans_plus_plus(rows: np.ndarray, row_norms: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """k-means++ seeding: each next centre drawn with probability proportional to its squared
    distance from the nearest centre so far (uniformly when every row sits on a centre)."""
    centres = np.empty((k, rows.shape[1]), dtype=rows.dtype)
    centres[0] = rows[rng.integers(len(rows))]
    nearest = squared_distances(rows, row_norms, centres[:1])[:, 0]
    for c in range(1, k):
        cumulative = np.cumsum(np.maximum(nearest, 0.0), dtype=np.float64)
        total = cumulative[-1]
        if total > 0:
            pick = min(int(np.searchsorted(cumulative, rng.random() * total, side="right")), len(rows) - 1)
        else:
            pick = int(rng.integers(len(rows)))
        centres[c] = rows[pick]
        nearest = np.minimum(nearest, squared_distances(rows, row_norms, centres[c:c + 1])[:, 0])
    return centres


def lloyd(rows: np.ndarray, row_norms: np.ndarray, centres: np.ndarray) -> tuple[np.ndarray, float]:
    """Lloyd iterations until the labels stop changing; an emptied cluster keeps its centre."""
    labels = np.full(len(rows), -1)
    inertia = float("inf")
    positions = np.arange(len(rows))
    for _ in range(MAX_ITERATIONS):
        distances = squared_distances(rows, row_norms, centres)
        new_labels = distances.argmin(axis=1)
        inertia = float(np.maximum(distances[positions, new_labels], 0.0).sum())
        if np.array_equal(new_labels, labels):
            break
        labels = new_labels
        membership = np.zeros((len(centres), len(rows)), dtype=rows.dtype)
        membership[labels, positions] = 1.0
        sums = membership @ rows  # each centre's row sum, as one matmul
        counts = np.bincount(labels, minlength=len(centres))
        filled = counts > 0
        centres = centres.copy()
        centres[filled] = (sums[filled] / counts[filled, None]).astype(centres.dtype)
    return centres, inertia


def fit_centres(embeddings: np.ndarray, k: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    n = len(embeddings)
    size = min(n, max(MIN_SAMPLE, k * ROWS_PER_CLUSTER))
    picked = np.sort(rng.choice(n, size, replace=False)) if size < n else np.arange(n)
    sample = np.asarray(embeddings[picked], dtype=np.float32)
    norms = squared_norms(sample)
    best: tuple[float, np.ndarray] | None = None
    # One BLAS thread: the sample's matrices are too small for threads to pay (on a loaded machine
    # they made the fit 7x slower), and the centres then do not depend on the machine's core count.
    with threadpool_limits(limits=1, user_api="blas"):
        for _ in range(RESTARTS):
            centres, inertia = lloyd(sample, norms, kmeans_plus_plus(sample, norms, k, rng))
            if best is None or inertia < best[0]:
                best = (inertia, centres)
    assert best is not None
    return best[1]


def nearest_centre(embeddings: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """The label of every row, a chunk at a time (float32, so a float64 input is never copied whole)."""
    centre_norms = squared_norms(centres)
    labels = np.empty(len(embeddings), dtype=np.int64)
    for start in range(0, len(embeddings), ASSIGN_CHUNK_ROWS):
        chunk = np.asarray(embeddings[start:start + ASSIGN_CHUNK_ROWS], dtype=np.float32)
        # |x|^2 is the same for every centre of a row: the argmin needs only |c|^2 - 2 x.c.
        labels[start:start + len(chunk)] = (centre_norms[None, :] - 2.0 * (chunk @ centres.T)).argmin(axis=1)
    return labels


def sampled_kmeans_labels(embeddings: np.ndarray, k: int, seed: int) -> np.ndarray:
    """A cluster label in [0, k) for every row; some clusters may end up empty."""
    return nearest_centre(embeddings, fit_centres(embeddings, k, seed))
