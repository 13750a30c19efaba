from __future__ import annotations

import numpy as np

from scicustom.core.ontology.granularity import Granularity, NodeContext
from scicustom.core.ontology.offline_judge import (
    LearnedGranularityJudge,
    exemplar_similarity,
    granularity_targets,
    judged_nodes,
    similarity_below,
    train_judge_model,
)
from scicustom.core.ontology.unit_selection import select_units
from tests.unit.ontology.dag_builders import fan, make_dag

C, M, F = Granularity.COARSE, Granularity.MODERATE, Granularity.FINE


def _science():
    # science -> {chemistry -> {ketone, ester}, biology -> {cell, tissue}}, each moderate has 12 leaves,
    # and each leaf-parent level also has a 10-leaf "detail" node below it (fine).
    edges = [("chemistry", "science"), ("biology", "science")]
    for parent, kids in (("chemistry", ["ketone", "ester"]), ("biology", ["cell", "tissue"])):
        for kid in kids:
            edges += [(kid, parent), *fan(kid, 12, f"{kid}-leaf"), (f"{kid} detail", kid),
                      *fan(f"{kid} detail", 10, f"{kid}-d")]
    return make_dag(edges, source="s")


def test_targets_moderate_coarse_fine():
    dag = _science()
    targets = granularity_targets([dag], {("s", "ketone"), ("s", "cell")})
    assert targets[("s", "ketone")] is M and targets[("s", "cell")] is M
    assert targets[("s", "science")] is C and targets[("s", "chemistry")] is C and targets[("s", "biology")] is C
    assert targets[("s", "ester")] is F and targets[("s", "ketone detail")] is F
    assert set(targets) == set(judged_nodes([dag]))  # exactly the nodes with >= 10 descendants


def test_similarity_below_is_the_best_among_judged_descendants():
    dag = _science()
    keys = judged_nodes([dag])
    sim = np.array([{"ketone": 0.9, "cell detail": 0.7}.get(n, 0.1) for _, n in keys], dtype=np.float32)
    below = dict(zip([n for _, n in keys], similarity_below(keys, {"s": dag}, sim), strict=True))
    assert below["science"] == np.float32(0.9) and below["chemistry"] == np.float32(0.9)
    assert below["biology"] == np.float32(0.7) and below["cell"] == np.float32(0.7)
    assert below["ketone"] == np.float32(0.1)  # only "ketone detail" (0.1) lies below it
    assert below["ketone detail"] == 0.0


def test_exemplar_similarity_leaves_out_own_exemplar():
    vectors = np.array([[1, 0], [0, 1]], dtype=np.float32)
    exemplars = np.array([[1, 0], [0.6, 0.8]], dtype=np.float32)
    sims = exemplar_similarity(vectors, exemplars)
    assert np.allclose(sims, [[1.0, 0.8], [0.8, 0.4]])
    held = exemplar_similarity(vectors, exemplars, leave_out=[{0}, set()])
    assert np.allclose(held[0], [0.6, (0.6 - 1.0) / 2])


def test_learned_judge_recovers_moderate_nodes_by_structure_and_similarity():
    dag = _science()
    keys = judged_nodes([dag])
    targets = granularity_targets([dag], {("s", "ketone"), ("s", "cell"), ("s", "ester"), ("s", "tissue")})
    # Label vectors: moderate nodes lie near the exemplar axis, the rest away from it.
    moderate = {"ketone", "ester", "cell", "tissue"}
    vectors = np.array([[1.0, 0.1] if n in moderate else [0.1, 1.0] for _, n in keys], dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    exemplars = np.array([[1.0, 0.0]], dtype=np.float32)
    model = train_judge_model(keys, targets, {"s": dag}, vectors, exemplars, [set() for _ in keys])
    judge = LearnedGranularityJudge(model, exemplars, lambda nodes: np.zeros((len(nodes), 2)), {"s": dag})
    judge.prime(keys, vectors)
    result = select_units([dag], judge)
    assert sorted(result.unit_names()) == ["cell", "ester", "ketone", "tissue"]

    # An unprimed node is featurised on the fly, with the judged nodes below it, through `encode`.
    def encode(nodes):
        return np.array([vectors[keys.index(("s", n.id))] for n in nodes])

    fresh = LearnedGranularityJudge(model, exemplars, encode, {"s": dag})
    for nid, label in (("ketone", M), ("chemistry", C), ("science", C), ("ketone detail", F)):
        assert fresh.judge(NodeContext(dag.nodes[nid], dag.stat(nid))) is label


def test_without_training_rows_the_judge_prunes_everything():
    dag = _science()
    keys = judged_nodes([dag])
    exemplars = np.array([[1.0, 0.0]], dtype=np.float32)
    model = train_judge_model([], {}, {"s": dag}, np.zeros((0, 2), dtype=np.float32), exemplars, [])
    judge = LearnedGranularityJudge(model, exemplars, lambda nodes: np.zeros((len(nodes), 2)), {"s": dag})
    judge.prime(keys, np.ones((len(keys), 2), dtype=np.float32) / np.sqrt(2))
    result = select_units([dag], judge)
    assert result.units == [] and result.labels == {"fine": 1}
