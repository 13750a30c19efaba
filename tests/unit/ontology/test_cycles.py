from __future__ import annotations

from itertools import pairwise

from scicustom.core.ontology.cycles import break_cycles, find_back_edges, find_cycle
from scicustom.core.ontology.dag import OntologyDAG, OntologyNode, topological_order
from tests.unit.ontology.dag_builders import make_dag


def _raw(edges):
    ids = sorted({n for e in edges for n in e})
    return OntologyDAG.build("s", [OntologyNode(i, i, "s") for i in ids], edges)


def test_acyclic_graph_has_no_cycle():
    dag = make_dag([("a", "r"), ("b", "r"), ("c", "a"), ("c", "b")])
    assert find_cycle(dag) is None and find_back_edges(dag) == []


def test_cycle_below_a_root_is_reported_as_a_path():
    # r -> a -> b -> c -> a (is-a edges child->parent: a is_a r, b is_a a, c is_a b, a is_a c)
    dag = _raw([("a", "r"), ("b", "a"), ("c", "b"), ("a", "c")])
    cycle = find_cycle(dag)
    assert cycle is not None
    assert cycle[0] == cycle[-1] and set(cycle) == {"a", "b", "c"} and len(cycle) == 4
    for parent, child in pairwise(cycle):
        assert child in dag.children_of(parent)


def test_cycle_without_any_root_is_found():
    dag = _raw([("y", "x"), ("x", "y")])
    assert dag.roots() == []
    assert find_cycle(dag) in (["x", "y", "x"], ["y", "x", "y"])


def test_break_cycles_leaves_a_dag_and_lists_removed_edges():
    dag = _raw([("a", "r"), ("b", "a"), ("c", "b"), ("a", "c"), ("d", "d2"), ("d2", "d")])
    removed = break_cycles(dag)
    assert len(removed) == 2
    assert find_cycle(dag) is None
    assert len(topological_order(dag)) == len(dag.nodes)
    for child, parent in removed:
        assert parent not in dag.parents_of(child)
