from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scicustom.core.build.mcq import (
    MCQ,
    answer_slot,
    from_mcq_item,
    from_open_item,
    parse_llm_mcq,
    pick_distractors,
    to_mcq,
)
from scicustom.core.corpus_item import make_item
from scicustom.core.quantities import answer_shape
from scicustom.core.requirement import requirement_from_text


def test_mcq_item_is_kept_verbatim_with_labels():
    item = make_item("mmlu", "MIT", "virology", "Which virus?", ["HIV", "HBV", "HPV", "HCV"], 2)
    mcq = from_mcq_item(item, {"source": "mmlu"})
    assert mcq.query == "Which virus?\nA. HIV\nB. HBV\nC. HPV\nD. HCV"
    assert mcq.answer == "C" and mcq.distractor_method == "original"


def test_distractors_never_equal_answer_and_are_unique():
    picked = pick_distractors("Capsid", ["capsid ", "Envelope", "envelope", "Genome", "", "Tegument", "Spike"])
    assert picked == ["Envelope", "Genome", "Tegument"]


def test_distractors_have_the_answer_s_shape():
    neighbours = ["0.2M", "Increase in temperature", "5000 ng", "12 mM", "7", "0.5 mM", "3.4 mM", "2 mM", "Km"]
    assert pick_distractors("3.4 mM", neighbours) == ["12 mM", "0.5 mM", "2 mM"]
    assert pick_distractors("Vmax", neighbours) == ["Increase in temperature", "Km"]  # too few: left out later
    assert pick_distractors("42", neighbours) == ["7"]
    assert [answer_shape(t) for t in ("3.4 mM", "20%", "37 °C", "1,5", "1.5-2 h", "Capsid 2")] == [
        "quantity:mM", "quantity:%", "quantity:°C", "number", "quantity:h", "text"]


@given(st.text(max_size=12), st.lists(st.text(max_size=12), max_size=30))
def test_picked_distractors_always_share_the_answer_s_shape(answer, neighbours):
    for picked in pick_distractors(answer, neighbours):
        assert answer_shape(picked) == answer_shape(answer)


def test_open_item_gets_exactly_one_correct_label():
    item = make_item("user", "CC0", "", "What protects the viral genome?", [], None, "The capsid")
    mcq = from_open_item(item, ["The envelope", "The ribosome", "The tegument"], seed=1, provenance={})
    lines = mcq.query.splitlines()
    assert len(lines) == 5
    correct = [line for line in lines[1:] if line.endswith("The capsid")]
    assert len(correct) == 1 and correct[0].startswith(mcq.answer + ".")


def test_open_item_needs_three_or_four_distractors():
    item = make_item("user", "CC0", "", "Q?", [], None, "A")
    with pytest.raises(ValueError, match="3-4"):
        from_open_item(item, ["x", "y"], seed=0, provenance={})


@given(st.text(min_size=1, max_size=20), st.integers(0, 10**6), st.integers(2, 5))
def test_answer_slot_is_in_range_and_reproducible(item_id, seed, n):
    assert 0 <= answer_slot(item_id, seed, n) < n
    assert answer_slot(item_id, seed, n) == answer_slot(item_id, seed, n)


def test_parse_llm_mcq_accepts_fenced_json():
    reply = '```json\n{"query": "Stem?\\nA. one\\nB. two\\nC. three\\nD. four", "answer": "(B)"}\n```'
    assert parse_llm_mcq(reply) == ("Stem?\nA. one\nB. two\nC. three\nD. four", "B")


@pytest.mark.parametrize("reply, problem", [
    ("no json here", "no JSON"),
    ('{"query": "Stem?\\nA. one\\nB. two", "answer": "A"}', "labelled"),
    ('{"query": "Stem?\\nA. 1\\nB. 2\\nC. 3\\nD. 4", "answer": "E"}', "not one of"),
    ('{"query": "Stem?\\nA. 1\\nC. 2\\nB. 3\\nD. 4", "answer": "A"}', "labelled"),
])
def test_parse_llm_mcq_rejects_unusable_replies(reply, problem):
    with pytest.raises(ValueError, match=problem):
        parse_llm_mcq(reply)


def test_records_carry_choices_and_answer_index_consistent_with_query():
    kept = from_mcq_item(make_item("mmlu", "MIT", "", "Which virus?", [" HIV", "HBV ", "HPV"], 2), {})
    made = from_open_item(make_item("user", "CC0", "", "What protects the genome?", [], None, "The capsid"),
                          ["The envelope", "The ribosome", "The tegument", "The spike"], seed=3, provenance={})
    for mcq in (kept, made):
        record = mcq.to_record()
        lines = record["query"].splitlines()[1:]
        assert lines == [f"{'ABCDE'[i]}. {c}" for i, c in enumerate(record["choices"])]
        assert "ABCDE"[record["answer_index"]] == record["answer"]
    assert kept.to_record()["choices"] == ["HIV", "HBV", "HPV"] and kept.answer_index == 2
    assert len(made.choices) == 5 and made.choices[made.answer_index] == "The capsid"


def test_llm_written_mcq_takes_its_choices_from_the_query():
    class Writer:
        name = "llm:test"

        def write(self, requirement, item):
            return '{"query": "Stem?\\n(A) one\\n(B) two\\n    continued\\n(C) three\\n(D) four", "answer": "B"}'

    item = make_item("user", "CC0", "", "Stem?", [], None, "two")
    mcq, warnings = to_mcq(item, {}, 0, writer=Writer(), requirement=requirement_from_text("virology"),
                           neighbour_answers=lambda _: [])
    assert warnings == [] and mcq is not None
    assert mcq.choices == ("one", "two continued", "three", "four") and mcq.answer_index == 1


@pytest.mark.parametrize("choices, answer", [(("x",), "A"), (("x", "y"), "C"), (("a", "b", "c", "d", "e", "f"), "A")])
def test_an_mcq_needs_two_to_five_choices_and_an_answer_among_them(choices, answer):
    with pytest.raises(ValueError):
        MCQ("i", "Q?", answer, choices=choices)
