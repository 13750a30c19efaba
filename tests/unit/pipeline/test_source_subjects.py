"""An item its source files under the requirement's topic itself is relevant; its field is not enough."""

from __future__ import annotations

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from scicustom.core.build.relevance import RelevanceModel, TopicEvidence, offline_relevance_jury
from scicustom.core.build.source_subjects import filed_under_topic, normalised_subject
from scicustom.core.build.term_postings import TermPostings
from scicustom.core.corpus_item import make_item
from scicustom.core.requirement import Requirement
from tests.support.hashing_embedder import HashingEmbedder


@pytest.mark.parametrize(("subject", "domain"), [
    ("virology", "virology"), ("medical_genetics", "Medical genetics"), ("Biochemistry / AIIMS 2018", "biochemistry"),
    ("high_school_physics", "physics"), ("college_biology", "Biology."), ("human_aging", "human aging")])
def test_the_topic_itself_matches(subject, domain):
    assert filed_under_topic(subject, domain, domain.replace(" ", "_").rstrip("."))


@pytest.mark.parametrize(("subject", "domain"), [
    ("Physiology", "renal physiology"), ("college_chemistry", "organic chemistry"), ("high_school_physics",
    "nuclear physics"), ("arc_easy", "virology"), ("science", "science fiction"), ("virology", ""),
    ("Microbiology", "virology")])
def test_a_field_or_an_unrelated_subject_does_not(subject, domain):
    assert not filed_under_topic(subject, domain, domain.replace(" ", "_"))


@pytest.mark.parametrize(("subject", "domain", "name"), [
    ("conceptual_physics", "physics", "quantum_error_correction"), ("Physiology", "physiology", "oxygen_transport")])
def test_a_domain_wider_than_the_requirement_named_is_not_its_topic(subject, domain, name):
    assert not filed_under_topic(subject, domain, name)
    assert filed_under_topic(subject, domain, f"fresh_{domain}")


@given(st.text(max_size=40))
@example("/\n0")  # a line break before the exam suffix: cut only on the second pass before
@example("college high_school biology")  # two qualifiers: one removed per pass before
def test_normalising_a_subject_is_idempotent_and_never_fails(subject):
    once = normalised_subject(subject)
    assert normalised_subject(once) == once


def _jury(requirement, items):
    embedder = HashingEmbedder()
    ids = [it.id for it in items]
    matrix = embedder.encode([it.text for it in items])
    evidence = TopicEvidence(requirement, embedder, matrix, list(range(len(ids))),
                             TermPostings([it.text for it in items]))
    return offline_relevance_jury(evidence, {i: matrix[r] for r, i in enumerate(ids)}, RelevanceModel.packaged())


def _item(subject, question, options=("A", "B", "C", "D")):
    return make_item("mmlu", "MIT", subject, question, list(options), 0)


def test_an_item_filed_under_the_topic_needs_only_a_topic_term_and_an_exclusion_still_vetoes_it():
    virology = Requirement("virology", "virology", "Questions on viruses: reverse transcriptase and capsid "
                           "assembly. Avoid hospital billing codes.")
    filler = [_item("miscellaneous", f"What colour is the sky over town {k}?") for k in range(120)]
    question = "How does the reverse transcriptase of this agent copy its genome?"
    filed, unfiled = _item("virology", question), _item("miscellaneous", question)
    termless = _item("virology", "Which study design compares a group of cases with a group of controls?")
    billing = _item("virology", "Which hospital billing codes apply to a hospital billing visit?")
    jury = _jury(virology, [*filler, filed, unfiled, termless, billing])
    for judge in jury:
        accepted = judge.judge(virology, filed)
        assert accepted.relevant and "files it under 'virology'" in accepted.reason
        assert "transcriptas" in accepted.reason
        assert "files it under" not in judge.judge(virology, unfiled).reason
        assert "files it under" not in judge.judge(virology, termless).reason  # its own evidence decides
        vetoed = judge.judge(virology, billing)
        assert not vetoed.relevant and "excluded" in vetoed.reason


def _virology_jury_and_items():
    virology = Requirement("virology", "virology", "Questions on viruses: reverse transcriptase and capsid "
                           "assembly. Avoid hospital billing codes.")
    filler = [_item("miscellaneous", f"What colour is the sky over town {k}?") for k in range(120)]
    termless = _item("virology", "Which study design compares a group of cases with a group of controls?")
    return virology, _jury(virology, [*filler, termless]), termless


def _verdicts_on_the_termless_item(monkeypatch, **evidence_values):
    """Each judge's verdict on the filed item without a term, the evidence's named methods answering
    the given values whatever they are asked."""
    virology, jury, termless = _virology_jury_and_items()
    for method, value in evidence_values.items():
        monkeypatch.setattr(jury[0].evidence, method, lambda _, value=value: value)
    return [judge.judge(virology, termless) for judge in jury]


@pytest.mark.parametrize(("margin", "phrase_z", "accepted"), [
    (0.2, 4.0, True), (0.15, 3.5, True), (0.14, 9.0, False), (0.3, 3.4, False), (-0.1, 9.0, False)])
def test_a_filed_item_without_a_topic_term_needs_the_requirement_closer_than_its_subject_and_a_concept_near(
        monkeypatch, margin, phrase_z, accepted):
    for verdict in _verdicts_on_the_termless_item(monkeypatch, narrowing=margin, phrase_z=phrase_z):
        assert ("closer to the requirement than to 'virology' alone" in verdict.reason) is accepted


def test_the_narrowing_margin_is_how_much_closer_an_item_is_to_the_requirement_than_to_its_subject():
    virology, jury, _ = _virology_jury_and_items()
    evidence, embedder = jury[0].evidence, HashingEmbedder()
    framed, bare = embedder.encode([virology.topic_text, "virology"])
    assert evidence.narrowing(framed) > 0.5 > -0.5 > evidence.narrowing(bare)


@pytest.mark.parametrize(("rare", "margin", "accepted"), [
    (["structur"], 0.0, True), (["structur"], 0.1, True), (["structur"], -0.01, False), ([], 0.1, False)])
def test_a_filed_item_naming_a_rare_term_needs_the_requirement_no_further_than_its_subject(
        monkeypatch, rare, margin, accepted):
    # phrase z 0: the narrowing rule alone never fires
    for verdict in _verdicts_on_the_termless_item(monkeypatch, matched_rare_terms=rare, narrowing=margin, phrase_z=0.0):
        assert ("names rare terms of the requirement (structur)" in verdict.reason) is accepted
        assert not verdict.relevant or accepted
