"""Small hand-made DAGs for the ontology tests."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

from scicustom.core.ontology.dag import OntologyDAG, OntologyNode


def make_dag(edges: Iterable[tuple[str, str]], source: str = "t", extra_nodes: Sequence[str] = (),
             synonyms: Mapping[str, Sequence[str]] | None = None) -> OntologyDAG:
    """`edges` are (child, parent); node ids double as labels."""
    edge_list = list(edges)
    ids = sorted({n for e in edge_list for n in e} | set(extra_nodes))
    nodes = [OntologyNode(id=i, label=i, source=source, synonyms=tuple((synonyms or {}).get(i, ())))
             for i in ids]
    dag = OntologyDAG.build(source, nodes, edge_list)
    dag.compute_stats()
    return dag


def fan(parent: str, n: int, prefix: str) -> list[tuple[str, str]]:
    """`n` leaf children under `parent`."""
    return [(f"{prefix}{i}", parent) for i in range(n)]
