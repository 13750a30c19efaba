"""Ontology benchmark: structural statistics and Algorithm 1 on a synthetic ChEBI-sized DAG.

Figures: nodes/s for descendant counts (one ancestor walk per node) against the baseline of one
descendant walk per node, and judged nodes/s for Algorithm 1 with a constant-time judge.
"""

from __future__ import annotations

import os
import random
import time

from scicustom.core.ontology.dag import OntologyDAG, OntologyNode, descendant_counts
from scicustom.core.ontology.granularity import Granularity, NodeContext
from scicustom.core.ontology.unit_selection import select_units


def synthetic_dag(n: int, seed: int = 0) -> OntologyDAG:
    """A random DAG where each node has 1-2 parents among earlier nodes (ChEBI has ~1.4)."""
    rng = random.Random(seed)
    nodes = [OntologyNode(str(i), f"term {i}", "bench") for i in range(n)]
    edges = []
    for i in range(1, n):
        for _ in range(1 + (rng.random() < 0.4)):
            edges.append((str(i), str(rng.randrange(max(0, i - 5000), i))))
    return OntologyDAG.build("bench", nodes, edges)


class DepthJudge:
    name = "depth"

    def judge(self, context: NodeContext) -> Granularity:
        if context.stats.depth < 3:
            return Granularity.COARSE
        return Granularity.MODERATE if context.stats.n_descendants < 500 else Granularity.COARSE


def main() -> None:
    n = int(os.environ.get("BENCH_ONTOLOGY_NODES", "20000"))
    dag = synthetic_dag(n)
    start = time.perf_counter()
    counts = descendant_counts(dag)
    ours = time.perf_counter() - start
    sample = list(dag.nodes)[: max(1, n // 50)]  # the baseline is slow: time a slice and scale it
    start = time.perf_counter()
    for nid in sample:
        assert len(dag.descendants(nid)) == counts[nid]
    baseline = (time.perf_counter() - start) * n / len(sample)
    print(f"descendant counts, {n} nodes: {n / ours:,.0f} nodes/s; "
          f"per-node descendant walk baseline {n / baseline:,.0f} nodes/s; ratio {baseline / ours:.1f}x")
    dag.compute_stats()
    start = time.perf_counter()
    result = select_units([dag], DepthJudge())
    elapsed = time.perf_counter() - start
    judged = sum(result.labels.values())
    print(f"algorithm 1: visited {result.visited}, judged {judged}, units {len(result.units)} in "
          f"{elapsed:.2f}s ({judged / elapsed:,.0f} judged nodes/s)")
    print(f"cpu cores: {os.cpu_count()}")


if __name__ == "__main__":
    main()
