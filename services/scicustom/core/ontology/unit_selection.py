"""Algorithm 1 of SciCustom: ontology-guided knowledge-unit selection.

DFS over each DAG; a node with fewer than `min_descendants` descendants backtracks; otherwise the
judge labels it: coarse -> recurse into its children, moderate -> keep it (and stop), fine -> prune.
A node reachable along several paths of a DAG is visited once (the first DFS path wins), as in the
paper's released code.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from scicustom.core.ontology.dag import OntologyDAG, OntologyNode
from scicustom.core.ontology.granularity import Granularity, GranularityJudge, NodeContext

MIN_DESCENDANTS = 10  # Algorithm 1, line 3


@dataclass(frozen=True)
class SelectedUnit:
    node: OntologyNode
    depth: int  # along the DFS path
    n_descendants: int


@dataclass
class SelectionResult:
    units: list[SelectedUnit] = field(default_factory=list)
    visited: int = 0
    backtracked_small: int = 0
    labels: Counter[str] = field(default_factory=Counter)
    judged: list[tuple[str, str, Granularity]] = field(default_factory=list)  # (source, id, label)

    def unit_names(self) -> list[str]:
        return [u.node.label for u in self.units]


def select_units(
    dags: Sequence[OntologyDAG],
    judge: GranularityJudge,
    *,
    min_descendants: int = MIN_DESCENDANTS,
    progress: Callable[[SelectionResult], None] | None = None,
) -> SelectionResult:
    result = SelectionResult()
    for dag in dags:
        seen: set[str] = set()
        for root in dag.roots():
            _dfs(dag, root, judge, min_descendants, seen, result, progress)
    return result


def _dfs(dag: OntologyDAG, root: str, judge: GranularityJudge, min_descendants: int,
         seen: set[str], result: SelectionResult,
         progress: Callable[[SelectionResult], None] | None) -> None:
    # Explicit stack of (node, DFS path of labels): the same pre-order as the recursive algorithm,
    # without Python's recursion limit on deep ontologies.
    stack: list[tuple[str, tuple[str, ...]]] = [(root, ())]
    while stack:
        nid, path = stack.pop()
        if nid in seen:
            continue
        seen.add(nid)
        result.visited += 1
        stats = dag.stat(nid)
        if stats.n_descendants < min_descendants:
            result.backtracked_small += 1
            continue
        node = dag.nodes[nid]
        label = judge.judge(NodeContext(node=node, stats=stats, path=path))
        result.labels[label.value] += 1
        result.judged.append((dag.source, nid, label))
        if progress is not None:
            progress(result)
        if label is Granularity.COARSE:
            below = (*path, node.label)
            stack.extend((child, below) for child in reversed(dag.children_of(nid)) if child not in seen)
        elif label is Granularity.MODERATE:
            result.units.append(SelectedUnit(node=node, depth=len(path), n_descendants=stats.n_descendants))
        # FINE: prune the branch.
