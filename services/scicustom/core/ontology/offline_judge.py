"""An offline granularity judge learned from moderate exemplars (the default unit names).

Targets come from where the exemplars sit in the DAGs: a node anchored by an exemplar is moderate;
a node with an anchored node strictly below it is coarse (Algorithm 1 must recurse through it);
every other node that Algorithm 1 would judge is fine (nothing to find at or below it). Features
are structural (depth, height, descendant/child/parent counts, label length) plus the MiniLM
similarity of the label to the exemplar names. A node's own exemplar is left out of its similarity
while training, so the model cannot learn "similarity 1.0 means moderate".
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Protocol

import numpy as np
from sklearn.ensemble import HistGradientBoostingClassifier

from scicustom.core.ontology.dag import NodeStats, OntologyDAG, OntologyNode
from scicustom.core.ontology.granularity import Granularity, NodeContext
from scicustom.core.ontology.unit_selection import MIN_DESCENDANTS

NodeKey = tuple[str, str]  # (source, node id)
FEATURES = ("depth", "height", "log_descendants", "log_children", "log_parents", "label_words",
            "similarity_max", "similarity_top3")
CLASSES = (Granularity.COARSE, Granularity.MODERATE, Granularity.FINE)


class Classifier(Protocol):
    def fit(self, x: np.ndarray, y: np.ndarray) -> object: ...
    def predict(self, x: np.ndarray) -> np.ndarray: ...


def new_classifier(seed: int = 0) -> Classifier:
    return HistGradientBoostingClassifier(max_iter=200, learning_rate=0.1, max_leaf_nodes=15,
                                          class_weight="balanced", random_state=seed)


def structural_features(stats: NodeStats, label: str) -> list[float]:
    return [float(stats.depth), float(stats.height), math.log1p(stats.n_descendants),
            math.log1p(stats.n_children), math.log1p(stats.n_parents), float(len(label.split()))]


def exemplar_similarity(vectors: np.ndarray, exemplars: np.ndarray,
                        leave_out: Sequence[Collection[int]] | None = None) -> np.ndarray:
    """Per row: max and mean-of-top-3 cosine to the exemplars, without the left-out exemplars."""
    if exemplars.shape[0] == 0:
        return np.zeros((vectors.shape[0], 2), dtype=np.float32)
    sims = vectors @ exemplars.T
    if leave_out is not None:
        for row, columns in enumerate(leave_out):
            if columns:
                sims[row, list(columns)] = -1.0
    k = min(3, sims.shape[1])
    top = -np.sort(-sims, axis=1)[:, :k]
    return np.stack([top[:, 0], top.mean(axis=1)], axis=1).astype(np.float32)


def judged_nodes(dags: Sequence[OntologyDAG], min_descendants: int = MIN_DESCENDANTS) -> list[NodeKey]:
    """The nodes Algorithm 1 may ask a judge about: those with enough descendants."""
    return [(dag.source, nid) for dag in dags for nid in sorted(dag.nodes)
            if dag.stat(nid).n_descendants >= min_descendants]


def granularity_targets(dags: Sequence[OntologyDAG], anchored: Collection[NodeKey],
                        min_descendants: int = MIN_DESCENDANTS) -> dict[NodeKey, Granularity]:
    targets: dict[NodeKey, Granularity] = {}
    for dag in dags:
        mine = [nid for source, nid in anchored if source == dag.source and nid in dag]
        above: set[str] = set()
        for nid in mine:
            above |= dag.ancestors(nid)
        anchored_here = set(mine)
        for nid in dag.nodes:
            if dag.stat(nid).n_descendants < min_descendants:
                continue
            if nid in anchored_here:
                targets[(dag.source, nid)] = Granularity.MODERATE
            elif nid in above:
                targets[(dag.source, nid)] = Granularity.COARSE
            else:
                targets[(dag.source, nid)] = Granularity.FINE
    return targets


def feature_matrix(keys: Sequence[NodeKey], dags_by_source: Mapping[str, OntologyDAG], vectors: np.ndarray,
                   exemplars: np.ndarray, leave_out: Sequence[Collection[int]] | None = None) -> np.ndarray:
    structure = np.array([structural_features(dags_by_source[s].stat(n), dags_by_source[s].nodes[n].label)
                          for s, n in keys], dtype=np.float32).reshape(len(keys), 6)
    return np.hstack([structure, exemplar_similarity(vectors, exemplars, leave_out)])


class LearnedGranularityJudge:
    """Labels a node from its features; `prime` labels many nodes in one batch first."""

    def __init__(self, model: Classifier, exemplars: np.ndarray,
                 encode: Callable[[Sequence[OntologyNode]], np.ndarray], name: str = "offline:learned") -> None:
        self.model = model
        self.exemplars = exemplars
        self.encode = encode
        self.name = name
        self._labels: dict[NodeKey, Granularity] = {}

    def prime(self, keys: Sequence[NodeKey], dags_by_source: Mapping[str, OntologyDAG],
              vectors: np.ndarray) -> None:
        if not keys:
            return
        predicted = self.model.predict(feature_matrix(keys, dags_by_source, vectors, self.exemplars))
        self._labels.update((k, Granularity(str(p))) for k, p in zip(keys, predicted, strict=True))

    def judge(self, context: NodeContext) -> Granularity:
        key = (context.node.source, context.node.id)
        if key not in self._labels:
            vector = self.encode([context.node])
            row = np.hstack([np.array([structural_features(context.stats, context.node.label)], dtype=np.float32),
                             exemplar_similarity(vector, self.exemplars)])
            self._labels[key] = Granularity(str(self.model.predict(row)[0]))
        return self._labels[key]


def train_judge_model(keys: Sequence[NodeKey], targets: Mapping[NodeKey, Granularity],
                      dags_by_source: Mapping[str, OntologyDAG], vectors: np.ndarray, exemplars: np.ndarray,
                      leave_out: Sequence[Collection[int]], seed: int = 0) -> Classifier:
    """Fit on the rows of `keys` (each with a target); `leave_out[i]` are row i's own exemplars."""
    x = feature_matrix(keys, dags_by_source, vectors, exemplars, leave_out)
    y = np.array([targets[k].value for k in keys])
    model = new_classifier(seed)
    model.fit(x, y)
    return model
