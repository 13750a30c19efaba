"""An offline granularity judge learned from moderate exemplars (the default unit names).

Targets come from where the exemplars sit in the DAGs: a node anchored by an exemplar is moderate;
a node with an anchored node strictly below it is coarse (Algorithm 1 must recurse through it);
every other node that Algorithm 1 would judge is fine (nothing to find at or below it). Features
are structural (depth, height, descendant/child/parent counts, label length) plus the MiniLM
similarity of the label to the exemplar names, and the highest such similarity among the judged
nodes below it (a node with exemplar-like terms below it should be recursed into, not kept). A
node's own exemplar is left out of its similarity while training, so the model cannot learn
"similarity 1.0 means moderate".
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Protocol

import numpy as np
from sklearn.dummy import DummyClassifier
from sklearn.ensemble import HistGradientBoostingClassifier

from scicustom.core.ontology.dag import NodeStats, OntologyDAG, OntologyNode
from scicustom.core.ontology.granularity import Granularity, NodeContext
from scicustom.core.ontology.unit_selection import MIN_DESCENDANTS

NodeKey = tuple[str, str]  # (source, node id)
FEATURES = ("depth", "height", "log_descendants", "log_children", "log_parents", "label_words",
            "similarity_max", "similarity_top3", "similarity_below")
CLASSES = (Granularity.COARSE, Granularity.MODERATE, Granularity.FINE)


class Classifier(Protocol):
    def fit(self, x: np.ndarray, y: np.ndarray) -> object: ...
    def predict(self, x: np.ndarray) -> np.ndarray: ...


def new_classifier(n_rows: int, seed: int = 0) -> Classifier:
    # Leaves of 20 rows on real ontologies (thousands of judged nodes); smaller on tiny ones.
    model: Classifier = HistGradientBoostingClassifier(max_iter=200, learning_rate=0.1, max_leaf_nodes=15,
                                          min_samples_leaf=max(1, min(20, n_rows // 20)),
                                          class_weight="balanced", random_state=seed)
    return model


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


def similarity_below(keys: Sequence[NodeKey], dags_by_source: Mapping[str, OntologyDAG],
                     similarity: np.ndarray) -> np.ndarray:
    """Per key: the highest `similarity` among its descendants that are also in `keys` (0 if none).

    With `keys` = every judged node this covers all judged descendants: a node with fewer than the
    threshold of descendants has no judged node below it. Children before parents (by height)."""
    row = {k: i for i, k in enumerate(keys)}
    below = np.zeros(len(keys), dtype=np.float32)
    for i in sorted(range(len(keys)), key=lambda i: dags_by_source[keys[i][0]].stat(keys[i][1]).height):
        source, nid = keys[i]
        best = 0.0
        for child in dags_by_source[source].children_of(nid):
            j = row.get((source, child))
            if j is not None:
                best = max(best, float(similarity[j]), float(below[j]))
        below[i] = best
    return below


def feature_matrix(keys: Sequence[NodeKey], dags_by_source: Mapping[str, OntologyDAG], vectors: np.ndarray,
                   exemplars: np.ndarray, leave_out: Sequence[Collection[int]] | None = None) -> np.ndarray:
    """One row per key; pass every judged node (see `similarity_below`)."""
    structure = np.array([structural_features(dags_by_source[s].stat(n), dags_by_source[s].nodes[n].label)
                          for s, n in keys], dtype=np.float32).reshape(len(keys), 6)
    similarity = exemplar_similarity(vectors, exemplars, leave_out)
    below = similarity_below(keys, dags_by_source, similarity[:, 0])
    return np.hstack([structure, similarity, below[:, None]])


class LearnedGranularityJudge:
    """Labels a node from its features; `prime` labels many nodes in one batch first."""

    def __init__(self, model: Classifier, exemplars: np.ndarray,
                 encode: Callable[[Sequence[OntologyNode]], np.ndarray],
                 dags_by_source: Mapping[str, OntologyDAG], *, min_descendants: int = MIN_DESCENDANTS,
                 name: str = "offline:learned") -> None:
        self.model = model
        self.exemplars = exemplars
        self.encode = encode
        self.dags_by_source = dags_by_source
        self.min_descendants = min_descendants
        self.name = name
        self._labels: dict[NodeKey, Granularity] = {}

    def prime(self, keys: Sequence[NodeKey], vectors: np.ndarray) -> None:
        """Label `keys` (every judged node, with their label vectors) in one batch."""
        if not keys:
            return
        predicted = self.model.predict(feature_matrix(keys, self.dags_by_source, vectors, self.exemplars))
        self._labels.update((k, Granularity(str(p))) for k, p in zip(keys, predicted, strict=True))

    def judge(self, context: NodeContext) -> Granularity:
        key = (context.node.source, context.node.id)
        if key not in self._labels:
            # Not primed: featurise this node with the judged nodes below it.
            dag = self.dags_by_source[context.node.source]
            below = sorted(d for d in dag.descendants(context.node.id)
                           if dag.stat(d).n_descendants >= self.min_descendants)
            keys = [key, *((context.node.source, d) for d in below)]
            vectors = self.encode([context.node, *(dag.nodes[d] for d in below)])
            row = feature_matrix(keys, self.dags_by_source, vectors, self.exemplars)[:1]
            self._labels[key] = Granularity(str(self.model.predict(row)[0]))
        return self._labels[key]


def train_judge_model(keys: Sequence[NodeKey], targets: Mapping[NodeKey, Granularity],
                      dags_by_source: Mapping[str, OntologyDAG], vectors: np.ndarray, exemplars: np.ndarray,
                      leave_out: Sequence[Collection[int]], seed: int = 0) -> Classifier:
    """Fit on the keys that have a target. `keys` are every judged node (their features read the
    nodes below them) and `leave_out[i]` are key i's own exemplars."""
    rows = [i for i, k in enumerate(keys) if k in targets]
    x = feature_matrix(keys, dags_by_source, vectors, exemplars, leave_out)[rows]
    y = np.array([targets[keys[i]].value for i in rows], dtype=object)
    if len(set(y)) < 2:
        # Nothing to tell apart (tiny ontologies, a fold without anchors): answer the one label
        # seen, or prune everything when there was nothing to learn from.
        constant = y[0] if len(y) else Granularity.FINE.value
        dummy: Classifier = DummyClassifier(strategy="constant", constant=constant)
        dummy.fit(np.zeros((1, x.shape[1])), np.array([constant], dtype=object))
        return dummy
    model = new_classifier(len(rows), seed)
    model.fit(x, y)
    return model
