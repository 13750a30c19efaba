"""The tagger's second reader: a multinomial logistic regression on an item's sentence vector.

The token network learns the units from the synthetic queries and the hand-labelled items; on real
questions its top unit is often a neighbour. A linear head on the items' MiniLM vectors, fitted on the
`train` split of the hand-labelled items only, gets many of those back (benchmarks/
experiment_tagger_embedding_heads.py, "served decoding"). The served score of a unit is
(network + blend * head) / (1 + blend); thresholds are calibrated on that blend.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

DEFAULT_BLEND = 2.0  # the largest blend that keeps the paper protocol >= 0.80 (issue 12's measure)
MAX_BLEND = 100.0  # beyond it the network hardly counts
REGULARISATION_C = 8.0  # sklearn's inverse L2 strength; chosen on `dev` in the experiment
MAX_ITERATIONS = 400


@dataclass(frozen=True)
class VectorHead:
    weights: np.ndarray  # [dimension, classes] float32
    bias: np.ndarray     # [classes] float32
    columns: np.ndarray  # [classes] int: the unit column of each class (units never labelled have none)
    units: int           # columns of the tagger's score rows
    blend: float
    embedder: str        # the name of the Embedder whose vectors it reads

    @property
    def dimension(self) -> int:
        return int(self.weights.shape[0])

    def scores(self, vectors: np.ndarray) -> np.ndarray:
        """P(unit | vector) per row, 0 for units it never saw."""
        logits = vectors.astype(np.float32) @ self.weights + self.bias
        logits -= logits.max(axis=1, keepdims=True)
        probabilities = np.exp(logits)
        probabilities /= probabilities.sum(axis=1, keepdims=True)
        out = np.zeros((len(vectors), self.units), dtype=np.float32)
        out[:, self.columns] = probabilities
        return out

    def blended(self, network_scores: np.ndarray, vectors: np.ndarray) -> np.ndarray:
        return ((network_scores + self.blend * self.scores(vectors)) / (1.0 + self.blend)).astype(np.float32)

    def manifest(self) -> dict[str, Any]:
        return {"blend": self.blend, "embedder": self.embedder, "dimension": self.dimension,
                "classes": int(self.columns.size), "regularisation_c": REGULARISATION_C}

    def fingerprint(self) -> bytes:
        """What the tagger version hashes (the .npz file is not byte-stable: its zip entries carry times)."""
        return b"".join([self.weights.tobytes(), self.bias.tobytes(), self.columns.tobytes(),
                         f"{self.units}|{self.blend}|{self.embedder}".encode()])

    def to_bytes(self) -> bytes:
        buffer = io.BytesIO()
        np.savez(buffer, weights=self.weights, bias=self.bias, columns=self.columns,
                 units=np.array(self.units), blend=np.array(self.blend), embedder=np.array(self.embedder))
        return buffer.getvalue()

    @staticmethod
    def from_bytes(data: bytes) -> VectorHead:
        with np.load(io.BytesIO(data), allow_pickle=False) as f:
            return VectorHead(f["weights"].astype(np.float32), f["bias"].astype(np.float32),
                              f["columns"].astype(np.int64), int(f["units"]), float(f["blend"]), str(f["embedder"]))


def fit_vector_head(vectors: np.ndarray, labels: Sequence[Sequence[int]], units: int, blend: float,
                    embedder: str) -> VectorHead | None:
    """The head on `vectors` (one row per labelled item) and their unit columns, most specific first:
    each listed unit is one training row weighted 1 / (1 + its rank). None with fewer than two units."""
    from sklearn.linear_model import LogisticRegression

    x, y, w = [], [], []
    for vector, columns in zip(vectors, labels, strict=True):
        for rank, column in enumerate(columns):
            x.append(vector)
            y.append(column)
            w.append(1.0 / (1 + rank))
    if len(set(y)) < 2:
        return None
    model = LogisticRegression(C=REGULARISATION_C, max_iter=MAX_ITERATIONS)
    model.fit(np.array(x, dtype=np.float64), np.array(y), sample_weight=np.array(w))
    coef, intercept = model.coef_, model.intercept_
    if coef.shape[0] == 1:  # two classes: sklearn keeps one logit z; softmax(-z/2, z/2) is the same
        coef, intercept = np.vstack([-coef / 2, coef / 2]), np.array([-intercept[0] / 2, intercept[0] / 2])
    return VectorHead(coef.T.astype(np.float32), intercept.astype(np.float32), model.classes_.astype(np.int64),
                      units, blend, embedder)
