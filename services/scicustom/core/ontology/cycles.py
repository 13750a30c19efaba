"""Cycle checks on is-a graphs. Algorithm 1 and descendant counts need a DAG."""

from __future__ import annotations

from scicustom.core.ontology.dag import OntologyDAG

_WHITE, _GREY, _BLACK = 0, 1, 2


def find_back_edges(dag: OntologyDAG) -> list[tuple[str, str]]:
    """(parent, child) edges that close a cycle in a depth-first walk from parents to children.

    Removing all of them leaves a DAG. Iterative, so deep ontologies do not hit the recursion limit.
    """
    colour = dict.fromkeys(dag.nodes, _WHITE)
    back: list[tuple[str, str]] = []
    # Roots first, then every node still unvisited, so cycles without a root are found too.
    starts = dag.roots() + sorted(dag.nodes)
    for start in starts:
        if colour[start] != _WHITE:
            continue
        colour[start] = _GREY
        stack: list[tuple[str, int]] = [(start, 0)]
        while stack:
            nid, i = stack[-1]
            kids = dag.children_of(nid)
            if i < len(kids):
                stack[-1] = (nid, i + 1)
                child = kids[i]
                if colour[child] == _GREY:
                    back.append((nid, child))
                elif colour[child] == _WHITE:
                    colour[child] = _GREY
                    stack.append((child, 0))
            else:
                colour[nid] = _BLACK
                stack.pop()
    return back


def find_cycle(dag: OntologyDAG) -> list[str] | None:
    """One cycle as a list of node ids [a, b, ..., a] following child edges, or None."""
    back = find_back_edges(dag)
    if not back:
        return None
    parent, child = back[0]
    # The back edge parent -> child closes a path child -> ... -> parent; find it breadth-first.
    previous: dict[str, str] = {child: child}
    frontier = [child]
    while frontier and parent not in previous:
        nxt = []
        for nid in frontier:
            for kid in dag.children_of(nid):
                if kid not in previous:
                    previous[kid] = nid
                    nxt.append(kid)
        frontier = nxt
    path = [parent]
    while path[-1] != child:
        path.append(previous[path[-1]])
    path.reverse()
    return [*path, child]


def break_cycles(dag: OntologyDAG) -> list[tuple[str, str]]:
    """Remove the back edges in place; returns them as (child, parent) is-a pairs for the report."""
    removed = [(child, parent) for parent, child in find_back_edges(dag)]
    for child, parent in removed:
        dag.parents[child] = tuple(p for p in dag.parents[child] if p != parent)
        if not dag.parents[child]:
            del dag.parents[child]
        dag.children[parent] = tuple(c for c in dag.children[parent] if c != child)
        if not dag.children[parent]:
            del dag.children[parent]
    if removed:
        dag.stats = {}
    return removed
