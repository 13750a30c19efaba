"""Train the offline granularity judge on the default units and measure how well Algorithm 1 with it
recovers those units, by k-fold cross-validation over the units (never graded on its own labels)."""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from scicustom.core.errors import PreconditionFailed
from scicustom.core.ontology.agreement import held_out_agreement, match_matrix
from scicustom.core.ontology.dag import OntologyDAG, OntologyNode
from scicustom.core.ontology.offline_judge import (
    LearnedGranularityJudge,
    NodeKey,
    granularity_targets,
    judged_nodes,
    train_judge_model,
)
from scicustom.core.ontology.unit_selection import MIN_DESCENDANTS, SelectionResult, select_units
from scicustom.core.units import NON_SCIENTIFIC
from scicustom.ports import LabelVectors

log = logging.getLogger(__name__)

# Embedding anchors are loose semantic matches: they do not teach the judge what "moderate" is.
TRAINING_METHODS = ("exact", "synonym", "fuzzy")


@dataclass(frozen=True)
class Exemplars:
    """Moderate exemplars: unit names, their vectors, and the judged nodes each unit anchors."""

    names: list[str]
    vectors: np.ndarray
    anchored: dict[NodeKey, set[int]]  # node -> indices of the units anchored there


def exemplars_from_units(units: Sequence[Mapping[str, Any]], vectors: LabelVectors) -> Exemplars:
    names = [str(u["name"]) for u in units]
    matrix = vectors.vectors([("unit", str(u["id"]), str(u["name"])) for u in units])
    anchored: dict[NodeKey, set[int]] = {}
    for i, unit in enumerate(units):
        for a in unit.get("anchors", ()):
            if a["method"] in TRAINING_METHODS:
                anchored.setdefault((a["source"], a["node_id"]), set()).add(i)
    return Exemplars(names=names, vectors=matrix, anchored=anchored)


class JudgeWorkbench:
    """The judged nodes of the DAGs with their label vectors, computed once for every fold."""

    def __init__(self, dags: Sequence[OntologyDAG], vectors: LabelVectors,
                 min_descendants: int = MIN_DESCENDANTS) -> None:
        self.dags = list(dags)
        self.by_source = {d.source: d for d in self.dags}
        self.min_descendants = min_descendants
        self.keys = judged_nodes(self.dags, min_descendants)
        self.row = {k: i for i, k in enumerate(self.keys)}
        self.vectors = vectors.vectors([(s, n, self.by_source[s].nodes[n].label) for s, n in self.keys])
        self._cache = vectors

    def _encode(self, nodes: Sequence[OntologyNode]) -> np.ndarray:
        return self._cache.vectors([(n.source, n.id, n.label) for n in nodes])

    def train(self, exemplars: Exemplars, train_units: set[int], held_out: set[int], seed: int = 0
              ) -> LearnedGranularityJudge:
        train_nodes = {k for k, us in exemplars.anchored.items() if us & train_units and k in self.row}
        test_nodes = {k for k, us in exemplars.anchored.items() if us & held_out and k in self.row}
        targets = granularity_targets(self.dags, train_nodes, self.min_descendants)
        # Drop nodes whose target the held-out units would change: their anchors, and ancestors of
        # theirs that are not ancestors of a training anchor (targets say fine; truth says coarse).
        excluded = set(test_nodes) - train_nodes
        for source, nid in test_nodes:
            excluded |= {(source, a) for a in self.by_source[source].ancestors(nid)}
        kept = {k: t for k, t in targets.items()
                if k not in excluded or t.value == "coarse" or k in train_nodes}
        columns = sorted(train_units)
        position = {u: j for j, u in enumerate(columns)}
        leave_out = [{position[u] for u in exemplars.anchored.get(k, set()) if u in position}
                     for k in self.keys]
        model = train_judge_model(self.keys, kept, self.by_source, self.vectors, exemplars.vectors[columns],
                                  leave_out, seed=seed)
        judge = LearnedGranularityJudge(model, exemplars.vectors[columns], self._encode, self.by_source,
                                        min_descendants=self.min_descendants)
        judge.prime(self.keys, self.vectors)
        return judge

    def select(self, judge: LearnedGranularityJudge) -> SelectionResult:
        return select_units(self.dags, judge, min_descendants=self.min_descendants)


def units_with_selected_anchor(result: SelectionResult, exemplars: Exemplars, units: set[int]) -> int:
    """Units (of `units`) one of whose exact/synonym/fuzzy anchors Algorithm 1 selected: agreement
    by ontology node, which name matching misses for e.g. "Apoptosis" -> "apoptotic process"."""
    selected = {(u.node.source, u.node.id) for u in result.units}
    return len({i for key, owners in exemplars.anchored.items() if key in selected for i in owners} & units)


def cross_validate(bench: JudgeWorkbench, exemplars: Exemplars, folds: int = 5, seed: int = 0) -> dict[str, Any]:
    n = len(exemplars.names)
    order = np.random.default_rng(seed).permutation(n)
    per_fold = []
    totals = np.zeros(4, dtype=int)
    anchor_hits = 0
    for k in range(folds):
        held_out = {int(i) for i in order[k::folds]}
        train_units = set(range(n)) - held_out
        judge = bench.train(exemplars, train_units, held_out, seed=seed)
        result = bench.select(judge)
        found = result.unit_names()
        fold = held_out_agreement(found, [exemplars.names[i] for i in sorted(train_units)],
                                  [exemplars.names[i] for i in sorted(held_out)])
        log.info("fold %d: %d units found, held-out precision %.3f recall %.3f", k, len(found),
                 fold.precision, fold.recall)
        hits = units_with_selected_anchor(result, exemplars, held_out)
        anchor_hits += hits
        per_fold.append({"fold": k, "units_found": len(found), "judged": sum(result.labels.values()),
                         "labels": dict(result.labels), **fold.as_dict(), "held_out_with_selected_anchor": hits})
        totals += [fold.found, fold.reference, fold.found_matched, fold.reference_matched]
    return {
        "folds": folds,
        "per_fold": per_fold,
        "held_out_precision": round(totals[2] / totals[0], 4) if totals[0] else 0.0,
        "held_out_recall": round(totals[3] / totals[1], 4) if totals[1] else 0.0,
        "held_out_anchor_recall": round(anchor_hits / n, 4) if n else 0.0,
    }


def recall_ceiling(bench: JudgeWorkbench, names: Sequence[str]) -> dict[str, float | int]:
    """How many reference units any judge could find: a judged node's label matches the name."""
    labels = sorted({bench.by_source[s].nodes[n].label for s, n in bench.keys})
    reachable = match_matrix(labels, names).any(axis=0)
    return {"units": len(names), "matchable": int(reachable.sum()),
            "ceiling_recall": round(float(reachable.mean()), 4) if len(names) else 0.0}


def in_sample(bench: JudgeWorkbench, exemplars: Exemplars,
              seed: int = 0) -> tuple[LearnedGranularityJudge, SelectionResult]:
    """The judge trained on every unit, and its selection (the `ontology units` default)."""
    judge = bench.train(exemplars, set(range(len(exemplars.names))), set(), seed=seed)
    return judge, bench.select(judge)


def training_inputs(dags: Sequence[OntologyDAG], min_descendants: int, keywords_file: Path,
                    label_vectors: Callable[[], LabelVectors]) -> tuple[JudgeWorkbench, Exemplars]:
    """The workbench over `dags` and the exemplars of the anchored default units (`keywords_file`)."""
    if not keywords_file.exists():
        raise PreconditionFailed("the offline judge learns from the anchored default units; "
                                 "run `scicustom ontology keywords --out FILE` first")
    # Every scientific unit is an exemplar by name; those with anchors also give node targets.
    units = [u for u in json.loads(keywords_file.read_text(encoding="utf-8"))["knowledge_units"]
             if u["name"] != NON_SCIENTIFIC]
    vectors = label_vectors()
    return JudgeWorkbench(dags, vectors, min_descendants), exemplars_from_units(units, vectors)


def offline_selection(dags: Sequence[OntologyDAG], min_descendants: int, keywords_file: Path,
                      label_vectors: Callable[[], LabelVectors]
                      ) -> tuple[LearnedGranularityJudge, SelectionResult]:
    """Algorithm 1 with the offline judge trained on every anchored default unit."""
    bench, exemplars = training_inputs(dags, min_descendants, keywords_file, label_vectors)
    return in_sample(bench, exemplars)
