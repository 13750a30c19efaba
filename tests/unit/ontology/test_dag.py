from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scicustom.core.errors import InvalidInput
from scicustom.core.ontology.dag import OntologyDAG, OntologyNode, descendant_counts, topological_order
from tests.unit.ontology.dag_builders import make_dag


def test_stats_on_a_diamond():
    #   r
    #  / \
    # a   b
    #  \ /
    #   c
    #   |
    #   d
    dag = make_dag([("a", "r"), ("b", "r"), ("c", "a"), ("c", "b"), ("d", "c")])
    assert dag.roots() == ["r"]
    assert {n: dag.stat(n).n_descendants for n in "rabcd"} == {"r": 4, "a": 2, "b": 2, "c": 1, "d": 0}
    assert {n: dag.stat(n).depth for n in "rabcd"} == {"r": 0, "a": 1, "b": 1, "c": 2, "d": 3}
    assert {n: dag.stat(n).height for n in "rabcd"} == {"r": 3, "a": 2, "b": 2, "c": 1, "d": 0}
    assert dag.stat("c").n_parents == 2 and dag.stat("r").n_children == 2
    assert list(dag.descendants_by_distance("r")) == [(1, "a"), (1, "b"), (2, "c"), (3, "d")]
    assert dag.ancestors("d") == {"c", "a", "b", "r"}


def test_dangling_and_self_edges_are_dropped_and_counted():
    nodes = [OntologyNode("x", "x", "s"), OntologyNode("y", "y", "s")]
    dag = OntologyDAG.build("s", nodes, [("x", "y"), ("x", "missing"), ("y", "y"), ("x", "y")])
    assert dag.n_edges == 1 and dag.dropped_edges == 2


def test_node_of_another_source_is_rejected():
    with pytest.raises(InvalidInput, match="belongs to other"):
        OntologyDAG.build("s", [OntologyNode("x", "x", "other")], [])


def test_topological_order_rejects_a_cycle():
    nodes = [OntologyNode(i, i, "s") for i in "abc"]
    dag = OntologyDAG.build("s", nodes, [("b", "a"), ("c", "b"), ("a", "c")])
    with pytest.raises(InvalidInput, match="cycle"):
        topological_order(dag)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 14), st.integers(0, 14)), max_size=40))
def test_descendant_counts_match_brute_force(pairs):
    # Orient every edge from the larger to the smaller id: always a DAG.
    edges = [(str(max(a, b)), str(min(a, b))) for a, b in pairs if a != b]
    dag = make_dag(edges, extra_nodes=[str(i) for i in range(15)])
    counts = descendant_counts(dag)
    for nid in dag.nodes:
        assert counts[nid] == len(dag.descendants(nid))
        assert dag.stat(nid).n_descendants == counts[nid]
