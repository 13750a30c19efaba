"""The offline generator on real papers: every kept item is grounded in the paper byte for byte,
options are of the answer's type and from the paper, output is deterministic, rejections are counted."""

from __future__ import annotations

import re
from functools import cache

from hypothesis import given, settings
from hypothesis import strategies as st

from scicustom.core.papers.cloze import BLANK, N_DISTRACTORS, generate_cloze, scaled_quantities
from scicustom.core.papers.document import DraftSection, PaperDraft, ParsedPaper, assemble
from scicustom.core.papers.formats import parse_paper
from scicustom.core.papers.grounding import answer_supported, citation_grounded, citation_score
from scicustom.core.papers.initialisms import InitialismIndex, initials
from tests.support.real_papers import JATS, MEDLINE_SMALL, PDF_TEI, TEI, member


@cache
def _papers() -> list[ParsedPaper]:
    return [parse_paper(member("pubmed", p), p) for p in JATS] + \
        [parse_paper(member("grobid", p), p) for p in (PDF_TEI, *TEI)]


def _check(paper: ParsedPaper, item, vocabulary: frozenset[str] = frozenset()) -> None:
    start, end = item.evidence
    sentence = paper.text[start:end]
    answer = item.answer
    assert paper.text[item.answer_span[0]:item.answer_span[1]] == answer
    assert start <= item.answer_span[0] < item.answer_span[1] <= end
    if item.options:
        assert item.options[item.answer_index] == answer
        assert len(item.options) == N_DISTRACTORS + 1 and len(set(item.options)) == len(item.options)
    else:
        assert item.answer_index is None  # open: the build's MCQ stage adds distractors
    for option in item.options:
        # every option is a span of the paper, a term of the ontology or the answer's value scaled
        assert option in paper.text or option in vocabulary or option in scaled_quantities(answer)
    if item.kind == "abbreviation":
        assert "What does" in item.question and BLANK in item.question
    else:
        prefix = f'Fill in the blank in this statement from the paper "{paper.title}": '
        assert item.question.startswith(prefix)
        stem = item.question[len(prefix):]
        assert stem.replace(BLANK, answer, 1) == sentence
        for distractor in item.options:
            if distractor != answer:
                assert distractor not in sentence  # no second right answer in the sentence itself
    if item.kind == "quantity":
        unit = re.sub(r"[\d.\s–−-]", "", answer)
        assert all(re.sub(r"[\d.\s–−-]", "", o) == unit for o in item.options)


def test_items_are_grounded_and_typed():
    total = 0
    for paper in _papers():
        result = generate_cloze(paper)
        total += len(result.items)
        for item in result.items:
            _check(paper, item)
        assert len({i.evidence for i in result.items}) == len(result.items)  # one per sentence
        assert sum(result.rejected_by_reason().values()) == len(result.rejections)
        assert result.candidates == len(result.items) + len(result.rejections)
    assert total > 100 and sum(1 for p in _papers() for i in generate_cloze(p).items if i.options) > 100


def test_generation_is_deterministic():
    paper = _papers()[0]
    assert generate_cloze(paper) == generate_cloze(paper)


def test_abbreviation_definitions_come_from_the_paper():
    paper = parse_paper(member("pubmed", JATS[3]), JATS[3])  # Rift Valley fever (RVF)
    questions = [i for i in generate_cloze(paper).items if i.kind == "abbreviation"]
    assert any('"RVF"' in q.question and q.answer == "Rift Valley fever" for q in questions)


def test_definition_questions_take_ontology_terms_with_the_same_initials_as_distractors():
    paper = parse_paper(member("pubmed", JATS[3]), JATS[3])  # Rift Valley fever (RVF)
    terms = frozenset(["Right ventricular failure", "Rift Valley fever", "renal vascular flow", "Rotavirus",
                       "red visual field", "Plant anatomy"])
    rvf = next(i for i in generate_cloze(paper, vocabulary=InitialismIndex(terms)).items if '"RVF"' in i.question)
    # The answer itself and one-word terms are never distractors; the paper's long forms fill the rest.
    assert rvf.answer == "Rift Valley fever" and rvf.distractor_sources == {"ontology": 3}
    assert {"Right ventricular failure", "renal vascular flow", "red visual field"} <= set(rvf.options)
    assert len(rvf.options) == 1 + N_DISTRACTORS and rvf.options[rvf.answer_index] == rvf.answer
    _check(paper, rvf, terms)
    without = next(i for i in generate_cloze(paper).items if '"RVF"' in i.question)
    assert "ontology" not in without.distractor_sources


def test_a_quantity_short_of_paper_distractors_gets_its_value_scaled_in_the_same_unit():
    assert scaled_quantities("3.4 mM") == ["34 mM", "0.34 mM", "6.8 mM", "1.7 mM"]
    assert scaled_quantities("47kg") == ["470kg", "4.7kg", "94kg", "23.5kg"]
    assert scaled_quantities("1.5-2 h") == scaled_quantities("0 mM") == scaled_quantities("Km") == []
    paper = parse_paper(member("pubmed", MEDLINE_SMALL), "pubmed-29768149.xml")
    for item in generate_cloze(paper).items:
        if item.kind == "quantity":  # never open: the scaled values complete the options
            assert item.options and item.options[item.answer_index] == item.answer
            assert sum(item.distractor_sources.values()) == N_DISTRACTORS
            scaled = set(scaled_quantities(item.answer))
            assert sum(o in scaled for o in item.options) == item.distractor_sources.get("scaled", 0)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.text(alphabet="abcdefgh -", min_size=1, max_size=30), max_size=30), st.text("abcdefgh", max_size=5))
def test_initialism_lookup_only_returns_terms_spelling_the_abbreviation(terms, short):
    for term in InitialismIndex(terms).terms_for(short):
        assert initials(term) == short.lower() and len(term.split()) + term.count("-") >= 2


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_any_selection_of_real_paragraphs_gives_grounded_items(data):
    source = _papers()[data.draw(st.integers(0, 6))]
    paragraphs = source.text.split("\n\n")
    chosen = data.draw(st.lists(st.sampled_from(paragraphs), min_size=1, max_size=25))
    paper = assemble(PaperDraft("jats", title=source.title, sections=[DraftSection("Body", tuple(chosen))]))
    for item in generate_cloze(paper).items:
        _check(paper, item)


def test_an_answer_without_enough_distractors_gives_an_open_item():
    opened = [(paper, i) for paper in _papers() for i in generate_cloze(paper).items if not i.options]
    assert opened and all(i.answer_index is None for _, i in opened)
    # a quantity is open only when its value cannot be scaled (a range, zero)
    assert all(not scaled_quantities(i.answer) for _, i in opened if i.kind == "quantity")
    for paper, item in opened:
        _check(paper, item)


def test_grounding_checks():
    paper = _papers()[0]
    sentence = paper.sentence_text(paper.sentences[5])
    assert citation_score(sentence, paper.text) == 100.0
    assert citation_grounded(sentence.replace(" ", "  ").upper(), paper.text)
    assert not citation_grounded("Lithium cobalt oxide cathodes crack after 500 cycles at 4.5 V.", paper.text)
    assert answer_supported("bovine serum albumin", "with 1 mg/ml Bovine Serum Albumin (BSA)")
    assert not answer_supported("thermal runaway", sentence)
