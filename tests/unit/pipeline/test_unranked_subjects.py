"""An item mainly about a unit no voting judge ranked is not the requirement's (issue 13)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from scicustom.core.build.relevance import RelevanceModel, TopicEvidence, offline_relevance_jury
from scicustom.core.build.term_postings import TermPostings
from scicustom.core.build.unranked_subjects import UnrankedSubjects
from scicustom.core.build.vote import VoteResult
from scicustom.core.corpus_item import make_item
from scicustom.core.requirement import Requirement
from tests.support.hashing_embedder import HashingEmbedder

NAMES = {"vir": "Viral replication", "inf": "Viral infection", "tcell": "T cell", "epi": "Epidemiology",
         "preg": "Pregnancy"}
# Two judges: "tcell" only the second ranked; "epi" and "preg" neither.
VOTES = VoteResult(("vir", "inf"), {}, {"a": ["vir", "inf"], "b": ["inf", "vir", "tcell"]})


def _subjects(tags):
    return UnrankedSubjects(VOTES, tags, NAMES)


def test_a_unit_no_judge_ranked_tagged_as_strongly_as_the_voted_one_is_what_the_item_is_about():
    subjects = _subjects({"x": [("inf", 0.999999), ("epi", 0.99998)], "y": [("preg", 0.99), ("inf", 1.0),
                                                                              ("epi", 0.95)]})
    assert subjects.of("x") == ["Epidemiology"]  # saturated sigmoids: the same confidence
    assert subjects.of("y") == ["Epidemiology", "Pregnancy"]


def test_a_unit_one_judge_ranked_a_weaker_tag_or_an_untagged_item_is_not():
    subjects = _subjects({"x": [("vir", 1.0), ("tcell", 1.0)], "y": [("vir", 0.98), ("epi", 0.4)], "z": []})
    assert subjects.of("x") == [] and subjects.of("y") == [] and subjects.of("z") == []
    assert subjects.of("unknown") == []


def test_an_item_carrying_no_voted_unit_is_about_whatever_unranked_unit_it_carries():
    assert _subjects({"x": [("epi", 0.1)]}).of("x") == ["Epidemiology"]


@given(st.lists(st.tuples(st.sampled_from(sorted(NAMES)), st.floats(0, 1)), max_size=6))
def test_only_units_outside_every_judges_list_are_ever_named(tags):
    named = _subjects({"x": tags}).of("x")
    assert set(named) <= {"Epidemiology", "Pregnancy"}
    assert named == sorted(named)


def test_every_offline_judge_rejects_such_an_item_with_the_unit_even_one_filed_under_the_topic():
    virology = Requirement("virology", "virology", "Questions on viral replication cycles of the virus.")
    items = [make_item("mmlu", "MIT", "virology", f"How does the virus replicate in cell type {k}?",
                       ["a", "b"], 0) for k in range(3)]
    items += [make_item("t", "CC0", "s", f"What colour is the sky over town {k}?", ["a", "b"], 0) for k in range(60)]
    embedder = HashingEmbedder()
    matrix = embedder.encode([it.text for it in items])
    evidence = TopicEvidence(virology, embedder, matrix, list(range(len(items))),
                             TermPostings([it.text for it in items]))
    vectors = {it.id: matrix[r] for r, it in enumerate(items)}
    tags = {items[0].id: [("vir", 1.0)], items[1].id: [("vir", 1.0), ("epi", 1.0)]}
    plain = offline_relevance_jury(evidence, vectors, RelevanceModel.packaged())
    vetoing = offline_relevance_jury(evidence, vectors, RelevanceModel.packaged(), _subjects(tags))
    for before, after in zip(plain, vetoing, strict=True):
        assert before.judge(virology, items[1]).relevant  # filed under the topic, names its terms
        assert after.judge(virology, items[0]).relevant
        verdict = after.judge(virology, items[1])
        assert not verdict.relevant and "mainly about 'Epidemiology'" in verdict.reason
