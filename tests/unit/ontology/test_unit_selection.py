from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from scicustom.core.ontology.granularity import Granularity, NodeContext
from scicustom.core.ontology.unit_selection import select_units
from tests.unit.ontology.dag_builders import fan, make_dag

C, M, F = Granularity.COARSE, Granularity.MODERATE, Granularity.FINE


class ScriptedJudge:
    name = "scripted"

    def __init__(self, labels, default=F):
        self.labels = labels
        self.default = default
        self.calls: list[str] = []
        self.paths: dict[str, tuple[str, ...]] = {}

    def judge(self, context: NodeContext) -> Granularity:
        self.calls.append(context.node.id)
        self.paths[context.node.id] = context.path
        return self.labels.get(context.node.id, self.default)


def test_coarse_recurses_moderate_is_kept_fine_prunes():
    # root (coarse) -> chem (moderate, 12 leaves below), bio (coarse) -> cell (moderate), tiny (fine)
    edges = [("chem", "root"), ("bio", "root"), *fan("chem", 12, "c"),
             ("cell", "bio"), *fan("cell", 10, "k"), ("tiny", "bio"), *fan("tiny", 10, "t"),
             ("deep", "chem"), *fan("deep", 10, "d")]
    dag = make_dag(edges)
    judge = ScriptedJudge({"root": C, "chem": M, "bio": C, "cell": M, "tiny": F, "deep": M})
    result = select_units([dag], judge)
    assert [u.node.id for u in result.units] == ["cell", "chem"]  # DFS visits bio before chem
    # "deep" sits under a moderate node: never judged. "tiny" is fine: its children never visited.
    assert "deep" not in judge.calls
    assert judge.calls == ["root", "bio", "cell", "tiny", "chem"]
    assert result.labels == Counter({"coarse": 2, "moderate": 2, "fine": 1})
    assert judge.paths["cell"] == ("root", "bio")
    assert {u.node.id: u.depth for u in result.units} == {"cell": 2, "chem": 1}


def test_backtracks_below_ten_descendants_without_asking_the_judge():
    edges = [("nine", "root"), *fan("nine", 9, "n"), ("ten", "root"), *fan("ten", 10, "t")]
    dag = make_dag(edges)
    assert dag.stat("nine").n_descendants == 9 and dag.stat("ten").n_descendants == 10
    judge = ScriptedJudge({"root": C}, default=M)
    result = select_units([dag], judge)
    assert judge.calls == ["root", "ten"]
    assert [u.node.id for u in result.units] == ["ten"]
    # root, nine, ten and ten's ten leaves are never visited past "ten" (moderate stops the walk)
    assert result.backtracked_small == 1
    assert result.visited == 3


def test_threshold_is_a_parameter():
    dag = make_dag([("a", "root"), *fan("a", 3, "x")])
    judge = ScriptedJudge({"root": C}, default=M)
    assert [u.node.id for u in select_units([dag], judge, min_descendants=3).units] == ["a"]
    assert select_units([dag], ScriptedJudge({"root": C}, default=M), min_descendants=4).units == []


def test_shared_descendant_in_a_dag_is_visited_once():
    # Both a and b are coarse and share "shared" (a diamond): judged once, kept once.
    edges = [("a", "root"), ("b", "root"), ("shared", "a"), ("shared", "b"), *fan("shared", 10, "s"),
             ("only_b", "b"), *fan("only_b", 10, "o")]
    dag = make_dag(edges)
    judge = ScriptedJudge({"root": C, "a": C, "b": C, "shared": M, "only_b": M})
    result = select_units([dag], judge)
    assert Counter(judge.calls)["shared"] == 1
    assert sorted(u.node.id for u in result.units) == ["only_b", "shared"]
    assert judge.paths["shared"] == ("root", "a")  # the first DFS path wins


def test_every_dag_and_every_root_is_walked():
    one = make_dag([("x", "r1"), *fan("x", 10, "a"), ("y", "r2"), *fan("y", 10, "b")], source="one")
    two = make_dag([*fan("z", 10, "c")], source="two")
    judge = ScriptedJudge({"r1": C, "r2": C}, default=M)
    result = select_units([one, two], judge)
    assert [(u.node.source, u.node.id) for u in result.units] == [("one", "x"), ("one", "y"), ("two", "z")]


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 40), st.integers(0, 40)), min_size=1, max_size=120),
       st.lists(st.sampled_from([C, M, F]), min_size=41, max_size=41))
def test_selection_invariants_on_random_dags(pairs, labels):
    edges = [(str(max(a, b)), str(min(a, b))) for a, b in pairs if a != b]
    dag = make_dag(edges, extra_nodes=[str(i) for i in range(41)])
    judge = ScriptedJudge({str(i): lab for i, lab in enumerate(labels)})
    result = select_units([dag], judge, min_descendants=3)
    assert len(judge.calls) == len(set(judge.calls))  # each node judged at most once
    assert all(dag.stat(n).n_descendants >= 3 for n in judge.calls)
    assert sorted(u.node.id for u in result.units) == sorted(n for n in judge.calls if judge.labels[n] is M)
    coarse = {n for n in judge.calls if judge.labels[n] is C}
    for n in judge.calls:  # a judged non-root was reached through a coarse parent
        assert not dag.parents_of(n) or coarse & set(dag.parents_of(n))
    for unit in result.units:  # nothing below a unit is judged unless reachable another way
        assert all(d not in judge.calls or (set(dag.ancestors(d)) & coarse - {unit.node.id})
                   for d in dag.descendants(unit.node.id))
