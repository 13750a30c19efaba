from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scicustom.core.ontology.anchoring import Anchor
from scicustom.core.ontology.dag import OntologyDAG, OntologyNode
from scicustom.core.ontology.keywords import derive_keywords, exclusive_keywords, usable_keyword
from tests.unit.ontology.dag_builders import make_dag


@pytest.mark.parametrize(("term", "ok"), [
    ("ventricular septum", True), ("1,2-dichloroethane", True), ("CHEBI:12345", False),
    ("obsolete thing", False), ("x", False), ("(2S)-2-amino-3-(4-hydroxyphenyl)propanoic acid derivative", True),
    ("(2S,3R,4S,5S,6R)-2-[(2R,3S,4R,5R,6S)-4,5-dihydroxy-2-(hydroxymethyl)-6-oxan-3-yl]oxy", False),
    ("one two three four five six seven", False),
])
def test_usable_keyword(term, ok):
    assert usable_keyword(term) is ok


def _anchor(source, node):
    return Anchor(source, node, node, "exact", 1.0)


def test_synonyms_first_then_descendants_nearest_first():
    # heart -> {left ventricle -> {apex}, atrium}; 'left ventricle' has one child so it ranks first.
    dag = make_dag([("left ventricle", "heart"), ("atrium", "heart"), ("apex", "left ventricle"),
                    ("heart", "organ")], source="a",
                   synonyms={"heart": ["cardiac organ", "Heart"], "atrium": ["atrial chamber"]})
    keywords = derive_keywords("Heart", [_anchor("a", "heart")], {"a": dag}).keywords
    assert keywords == ["cardiac organ", "left ventricle", "atrium", "atrial chamber", "apex"]


def test_anchors_interleave_and_the_cap_holds():
    one = make_dag([(f"xa{i}", "root1") for i in range(5)], source="one")
    two = make_dag([(f"ya{i}", "root2") for i in range(5)], source="two")
    anchors = [_anchor("one", "root1"), _anchor("two", "root2")]
    keywords = derive_keywords("Unit", anchors, {"one": one, "two": two}, cap=6).keywords
    assert keywords == ["root1", "root2", "xa0", "ya0", "xa1", "ya1"]


def test_duplicates_and_unit_name_are_skipped():
    dag = make_dag([("Ketones", "ketone"), ("ketone body", "ketone")], source="a",
                   synonyms={"ketone": ["KETONE", "alkanone"]})
    assert derive_keywords("Ketone", [_anchor("a", "ketone")], {"a": dag}).keywords == ["alkanone", "ketone body"]


def test_no_anchors_no_keywords():
    assert derive_keywords("Anything", [], {}).keywords == []


def test_related_terms_come_last_and_are_counted():
    nodes = [OntologyNode("s", "stoichiometry", "n", related=("chemical reactions", "Stoichiometry", "phase diagrams")),
             OntologyNode("m", "material balance", "n", related=("stoichiometry",))]
    dag = OntologyDAG.build("n", nodes, [("m", "s")])
    dag.compute_stats()
    derived = derive_keywords("Stoichiometry", [_anchor("n", "s")], {"n": dag})
    assert derived.keywords == ["material balance", "chemical reactions", "phase diagrams"]
    assert derived.n_related == 2
    capped = derive_keywords("Stoichiometry", [_anchor("n", "s")], {"n": dag}, cap=2)
    assert capped.keywords == ["material balance", "chemical reactions"] and capped.n_related == 1


def test_a_shared_term_stays_with_the_unit_where_it_ranks_nearest():
    names = ["Cardiology", "Anatomy", "Organs"]
    sets = [["heart", "aorta", "valve"], ["bone", "valves", "heart"], ["Heart", "liver"]]
    # 'heart' ranks 0 in units 0 and 2 (tie: the earlier unit) and 2 in unit 1; 'valve' and
    # 'valves' are one term, nearer in unit 1.
    assert exclusive_keywords(names, sets) == [["heart", "aorta"], ["bone", "valves"], ["liver"]]


def test_a_term_naming_a_unit_belongs_to_that_unit_alone():
    names = ["Virology", "Immunology"]
    sets = [["virus", "immunology"], ["antibody", "Viruses"]]
    assert exclusive_keywords(names, sets) == [["virus"], ["antibody", "Viruses"]]


def test_exclusive_keywords_needs_one_set_per_name():
    with pytest.raises(ValueError, match="one keyword set per unit name"):
        exclusive_keywords(["a"], [])


_terms = st.lists(st.sampled_from(["alpha", "beta", "gamma", "delta", "Beta", "gammas", "eps"]), max_size=6,
                  unique=True)


@given(st.lists(_terms, min_size=1, max_size=6))
def test_exclusive_keywords_partitions_the_terms(sets):
    from scicustom.core.ontology.anchoring import normalise_term

    names = [f"unit {i}" for i in range(len(sets))]
    out = exclusive_keywords(names, sets)
    owners: dict[str, set[int]] = {}
    for unit, (before, after) in enumerate(zip(sets, out, strict=True)):
        assert after == [t for t in before if t in after]  # a subsequence, order kept
        for term in after:
            owners.setdefault(normalise_term(term), set()).add(unit)
    assert all(len(units) == 1 for units in owners.values())
    # Nothing is lost: every term of the input is still somewhere.
    assert set(owners) == {normalise_term(t) for terms in sets for t in terms}
