from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scicustom.core.corpus_import import RawRecord, SourceReport, merge_source, normalise_record
from scicustom.core.corpus_item import make_item, split_inline_options, stable_item_id


def test_inline_options_are_parsed_from_the_prompt():
    stem, labels, options = split_inline_options(
        "Question: Which gas do plants absorb?\n A. oxygen\n B. carbon dioxide\n C. helium\n D. neon\nAnswer:")
    assert stem == "Which gas do plants absorb?"
    assert labels == list("ABCD") and options[1] == "carbon dioxide"


def test_numbered_stem_line_and_stray_quote_are_not_options():
    stem, labels, _ = split_inline_options(
        'Question: Steps:\n7. heat it\n A. one\n B. two\n C. three\n"\nAnswer:')
    assert stem == "Steps:\n7. heat it" and labels == list("ABC")


def test_stable_id_ignores_case_and_spacing():
    a = stable_item_id("arc", "What  is X?", ("a", "b"), "a")
    assert a == stable_item_id("arc", "what is x?", ("A", "B"), "A")
    assert a != stable_item_id("obqa", "what is x?", ("A", "B"), "A")


@pytest.mark.parametrize("raw, reason", [
    (RawRecord("o", question="", options=["a", "b"], answer_index=0), "empty question"),
    (RawRecord("o", question="q", options=["a", "b"], answer_index=5), "out of range"),
    (RawRecord("o", question="q", options=["a", ""], answer_index=0), "empty option"),
    (RawRecord("o", question="q", options=["a", "b"], answer_index="1"), "not an integer"),
    (RawRecord("o", question=3, options=["a", "b"], answer_index=0), "not text"),
    (RawRecord("o", inline_query="Question: q\nAnswer:", answer_index=0), "no options"),
    (RawRecord("o", question="q"), "without an answer"),
])
def test_malformed_records_name_the_problem(raw, reason):
    with pytest.raises(ValueError, match=reason):
        normalise_record(raw, "src", "MIT")


def test_merge_counts_duplicates_and_skips_and_is_idempotent():
    records = [
        RawRecord("1", question="Q1", options=["a", "b"], answer_index=0),
        RawRecord("2", question="q1 ", options=["A", "B"], answer_index=0),  # same item
        RawRecord("3", question="Q2", options=["a"], answer_index=0),        # malformed
        RawRecord("4", question="Q3", answer="free text"),                   # open item
    ]
    items, keys, rep = {}, set(), SourceReport()
    merge_source(items, keys, records, "src", "MIT", rep)
    assert (rep.read, rep.imported, rep.duplicates) == (4, 2, 1)
    assert rep.skipped == Counter({"fewer than two options": 1})
    again = SourceReport()
    merge_source(items, keys, records, "src", "MIT", again)
    assert again.imported == 0 and len(items) == 2
    assert sorted(i.format for i in items.values()) == ["mcq", "open"]


@given(st.lists(st.text(alphabet="abcxyz ", min_size=1, max_size=8).filter(str.strip), min_size=2, max_size=5,
                unique_by=lambda s: " ".join(s.split())), st.data())
def test_inline_round_trip(options, data):
    answer = data.draw(st.integers(0, len(options) - 1))
    query = "Question: What?\n" + "".join(f" {chr(65 + i)}. {o}\n" for i, o in enumerate(options)) + "Answer:"
    item = normalise_record(RawRecord("o", inline_query=query, answer_index=answer), "s", "MIT")
    assert item.options == tuple(o.strip() for o in options)
    assert item.answer == options[answer].strip()
    assert item == make_item("s", "MIT", "", "What?", list(options), answer)
