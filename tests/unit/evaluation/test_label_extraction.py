from __future__ import annotations

import string

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scicustom.core.evaluation.label_extraction import LabelExtraction, extract_label

OPTIONS = {"A": "Mitochondrion", "B": "Nucleus", "C": "Ribosome", "D": "Golgi apparatus"}
FIVE = {**OPTIONS, "E": "Lysosome"}


@pytest.mark.parametrize(("text", "label", "rule"), [
    ("The answer is (C)", "C", "answer statement"),
    ("The answer is C.", "C", "answer statement"),
    ("Answer: c", "C", "answer statement"),
    ("ANSWER: D", "D", "answer statement"),
    ("Final answer: d", "D", "answer statement"),
    ("The correct answer is: **D**", "D", "answer statement"),
    ("**Answer:** B", "B", "answer statement"),
    ("Answer:\n\nB", "B", "answer statement"),
    ("The correct option is (b).", "B", "answer statement"),
    ("I would choose C", "C", "answer statement"),
    ("The answer is option [A]", "A", "answer statement"),
    ("The answer is A because mitochondria make ATP.", "A", "answer statement"),
    ("The answer is a mitochondrion", "A", "answer statement"),  # 'a' starts option A's text
    # Reasoning first, final answer last: the last statement wins.
    ("Let me think. Option A is wrong. Option C is wrong. The answer is B.", "B", "answer statement"),
    ("At first the answer seemed to be A, but on reflection the answer is D.", "D", "answer statement"),
    ("<think>The answer is A? no...</think>\nAnswer: B", "B", "answer statement"),
    ("\\boxed{C}", "C", "boxed"),
    ("$\\boxed{\\text{B}}$", "B", "boxed"),
    ("B is correct.", "B", "verdict"),
    ("I think D is the best.", "D", "verdict"),
    ("**C**", "C", "bold label"),
    ("It has to be **(B)** here, given the staining pattern seen.", "B", "bold label"),
    ("C", "C", "leading label"),
    ("C.", "C", "leading label"),
    ("c", "C", "leading label"),
    ("(B)", "B", "leading label"),
    ("[C]", "C", "leading label"),
    ("B) Nucleus", "B", "leading label"),
    ("D: Golgi apparatus", "D", "leading label"),
    ("A. Mitochondrion, the powerhouse of the cell", "A", "leading label"),
    ("A mitochondrion", "A", "leading label"),
    ("Ribosome", "C", "echoed option"),
    ("golgi apparatus.", "D", "echoed option"),
    ("It is the nucleus, which stores DNA.", "B", "echoed option"),
    ("I'd pick the choice (C) here, given the data we have in the question", "C", "marked label"),
    ("I think it is B", "B", "short answer"),
])
def test_reads_the_chosen_label(text: str, label: str, rule: str) -> None:
    assert extract_label(text, OPTIONS) == LabelExtraction(label, rule)


@pytest.mark.parametrize("text", [
    "",
    "I cannot answer.",
    "nonsense here",
    "A protein is made by ribosomes and mitochondria",  # article 'A', two options echoed
    "A, B and C",
    "B or C",
    "The answer is E",  # not an option of a four-option question
    "answer is a bit tricky",
    "Answer: 42",
    "Because of the membrane potential",  # 'B' starts a word
])
def test_malformed_or_ambiguous_output_is_unparsed(text: str) -> None:
    assert extract_label(text, OPTIONS).label is None
    assert extract_label(text, OPTIONS).rule == "unparsed"


def test_fifth_label_is_valid_only_when_the_item_has_it() -> None:
    assert extract_label("The answer is E", FIVE).label == "E"
    assert extract_label("E.", FIVE).label == "E"
    assert extract_label("E.", OPTIONS).label is None


def test_option_contained_in_a_longer_option_resolves_to_the_longer() -> None:
    options = {"A": "sodium", "B": "sodium chloride", "C": "potassium"}
    assert extract_label("It is sodium chloride.", options).label == "B"
    assert extract_label("sodium", options).label == "A"


def test_no_options_means_unparsed() -> None:
    assert extract_label("A", {}).label is None


PUNCTUATION = st.text(alphabet=string.punctuation + " \n", max_size=12)
OPENERS = st.sampled_from(["", "(", "[", "**", "*", " ", "\n", "> ", "- ", "\"", "'"])


@given(label=st.sampled_from("ABCDE"), opener=OPENERS, tail=PUNCTUATION)
def test_a_label_followed_by_any_punctuation_is_found(label: str, opener: str, tail: str) -> None:
    assert extract_label(f"{opener}{label}{tail}", FIVE).label == label


@given(label=st.sampled_from("ABCDE"), lead=st.sampled_from(["The answer is ", "Answer: ", "answer is ",
                                                             "The correct answer is "]),
       tail=PUNCTUATION, lower=st.booleans())
def test_an_answer_statement_followed_by_any_punctuation_is_found(label: str, lead: str, tail: str,
                                                                  lower: bool) -> None:
    written = label.lower() if lower else label
    assert extract_label(f"Some reasoning first. {lead}{written}{tail}", FIVE).label == label
