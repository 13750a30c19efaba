"""Labels for unlabelled real items from their nearest hand-labelled ones (a teacher for the tagger).

An item's score for a unit is the cosine-weighted vote of its `k` nearest hand-labelled items
(MiniLM space; a labeller's first unit counts fully, its n-th 1/n), scaled to [0, 1], plus the
item's similarity to the unit's prototype (its name and keywords) relative to the best unit. On
the hand-labelled `dev` split this teacher put a gold unit first for 0.63 of the items with 6.9k
labelled training items, against 0.36 for the prototypes alone (zero-shot). The tagger learns from
its labels on the whole corpus, so the served model sees real questions of every unit, not only
the labelled few.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from scicustom.core.corpus_item import CorpusItem
from scicustom.core.tagger_training.dataset import LabelledText
from scicustom.core.tagger_training.subject_priors import subject_prior
from scicustom.core.units import KnowledgeUnit
from scicustom.ports import Embedder


@dataclass(frozen=True)
class TeacherParams:
    neighbours: int = 10
    prototype_weight: float = 5.0  # times (similarity - best similarity) of the prototypes
    second_unit_ratio: float = 0.75  # a second unit joins when it scores this share of the first
    batch: int = 2048


class GoldNeighbourTeacher:
    def __init__(self, gold_vectors: np.ndarray, gold_columns: Sequence[Sequence[int]], prototypes: np.ndarray,
                 params: TeacherParams = TeacherParams()) -> None:
        """`gold_columns`: per labelled item its unit columns, most specific first; `prototypes`:
        one L2-normalised row per unit column."""
        if len(gold_vectors) != len(gold_columns):
            raise ValueError("one unit list per labelled vector")
        self._gold = np.asarray(gold_vectors, dtype=np.float32)
        self._votes = np.zeros((len(gold_columns), prototypes.shape[0]), dtype=np.float32)
        for row, columns in enumerate(gold_columns):
            for rank, column in enumerate(columns):
                self._votes[row, column] = 1.0 / (1 + rank)
        self._prototypes = np.asarray(prototypes, dtype=np.float32)
        self.params = params

    def scores(self, vectors: np.ndarray) -> np.ndarray:
        """Items x unit columns; the best unit of a row scores highest."""
        out = np.zeros((len(vectors), self._prototypes.shape[0]), dtype=np.float32)
        k = min(self.params.neighbours, len(self._gold))
        for start in range(0, len(vectors), self.params.batch):
            block = np.asarray(vectors[start:start + self.params.batch], dtype=np.float32)
            similarity = block @ self._gold.T
            nearest = np.argpartition(-similarity, k - 1, axis=1)[:, :k]
            weights = np.maximum(np.take_along_axis(similarity, nearest, axis=1), 0.0)
            votes = np.einsum("nk,nku->nu", weights, self._votes[nearest])
            votes /= np.maximum(votes.max(axis=1, keepdims=True), 1e-9)
            prototype = block @ self._prototypes.T
            out[start:start + len(block)] = votes + self.params.prototype_weight * (
                prototype - prototype.max(axis=1, keepdims=True))
        return out

    def labels(self, vectors: np.ndarray, allowed: np.ndarray | None = None) -> list[list[int]]:
        """Per item its best unit column, and the second best when it scores close to it;
        `allowed` (items x units, bool) restricts the choice (e.g. to the scientific units)."""
        scores = self.scores(vectors)
        if allowed is not None:
            scores = np.where(allowed, scores, -np.inf)
        out = []
        for row in scores:
            first, second = np.argsort(-row, kind="stable")[:2]
            chosen = [int(first)]
            if row[first] > 0 and row[second] >= self.params.second_unit_ratio * row[first]:
                chosen.append(int(second))
            out.append(chosen)
        return out


def unit_prototypes(units: Sequence[KnowledgeUnit], embedder: Embedder, max_keywords: int = 20) -> np.ndarray:
    """Per unit the normalised sum of its name's vector and the mean vector of its first keywords."""
    keywords = [list(u.keywords)[:max_keywords] for u in units]
    names = embedder.encode([u.name for u in units])
    flat = [k for ks in keywords for k in ks]
    vectors = embedder.encode(flat) if flat else np.zeros((0, names.shape[1]), dtype=np.float32)
    out, start = [], 0
    for name_vector, ks in zip(names, keywords, strict=True):
        row = np.asarray(name_vector, dtype=np.float32)
        if ks:
            mean = vectors[start:start + len(ks)].mean(axis=0)
            row = row + mean / max(float(np.linalg.norm(mean)), 1e-9)
            start += len(ks)
        out.append(row / max(float(np.linalg.norm(row)), 1e-9))
    return np.asarray(out, dtype=np.float32)


def teacher_examples(items: Sequence[CorpusItem], vectors: np.ndarray, teacher: GoldNeighbourTeacher,
                     unit_ids: Sequence[str], scientific: np.ndarray, non_scientific_id: str) -> list[LabelledText]:
    """The teacher's labels for real items whose subject says they are science (non-science
    subjects are labelled Non-Scientific; items of ambiguous subjects are left out)."""
    priors = [subject_prior(it.source, it.subject) for it in items]
    science_rows = [i for i, p in enumerate(priors) if p is not None and not p.non_scientific]
    labels = teacher.labels(vectors[science_rows], np.broadcast_to(scientific, (len(science_rows), len(scientific))))
    by_row = dict(zip(science_rows, labels, strict=True))
    out = []
    for i, (item, prior) in enumerate(zip(items, priors, strict=True)):
        if prior is None:
            continue
        units = (non_scientific_id,) if prior.non_scientific else tuple(unit_ids[c] for c in by_row[i])
        out.append(LabelledText(item.text, units, f"teacher:{item.source}", item.id, item.subject))
    return out
