from __future__ import annotations

import json

import pytest

from scicustom.core.errors import InvalidInput
from scicustom.core.evaluation.benchmark_lines import parse_benchmark, split_query


def test_splits_stem_and_options() -> None:
    stem, options = split_query("Which organelle makes ATP?\nA. Mitochondrion\nB. Nucleus\nC. Ribosome")
    assert stem == "Which organelle makes ATP?"
    assert options == {"A": "Mitochondrion", "B": "Nucleus", "C": "Ribosome"}


def test_multi_line_stem_parenthesised_labels_and_continuation_lines() -> None:
    query = ("A patient presents with fever.\nA. is not an option here\nWhat is next?\n"
             "(A) Rest\n(B) Antibiotics\n   given orally\nC) Surgery")
    stem, options = split_query(query)
    # The last run of A, B, C... is the option list; the earlier "A." line belongs to the stem.
    assert stem == "A patient presents with fever.\nA. is not an option here\nWhat is next?"
    assert options == {"A": "Rest", "B": "Antibiotics given orally", "C": "Surgery"}


def test_five_options() -> None:
    _, options = split_query("Q?\nA. 1\nB. 2\nC. 3\nD. 4\nE. 5")
    assert list(options) == ["A", "B", "C", "D", "E"]


@pytest.mark.parametrize("query", ["Q? no options", "Q?\nA. only one", "Q?\nB. x\nC. y"])
def test_queries_without_an_option_list_are_rejected(query: str) -> None:
    with pytest.raises(ValueError, match="no options"):
        split_query(query)


def _line(**record: object) -> str:
    return json.dumps({"provenance": {}, **record})


def test_parses_benchmark_lines_and_normalises_the_answer() -> None:
    lines = [_line(id="q1", query="Q?\nA. x\nB. y", answer="b"), "",
             _line(id="q2", query="R?\nA. u\nB. v", answer="A")]
    items = parse_benchmark(lines)
    assert [(i.id, i.answer, i.labels) for i in items] == [("q1", "B", ("A", "B")), ("q2", "A", ("A", "B"))]
    assert items[0].query_sha != items[1].query_sha


@pytest.mark.parametrize(("lines", "problem"), [
    (["{not json"], "line 1: not JSON"),
    (["[1, 2]"], "expected a JSON object"),
    ([_line(query="Q?\nA. x\nB. y", answer="A")], "'id'"),
    ([_line(id="q", query="Q?\nA. x\nB. y", answer="C")], "answer 'C' is not one of the options AB"),
    ([_line(id="q", query="Q?", answer="A")], "no options"),
    ([_line(id="q", query="Q?\nA. x\nB. y", answer="A")] * 2, "line 2: duplicate id 'q'"),
    (["", "  "], "no items"),
])
def test_bad_benchmark_lines_name_the_line_and_problem(lines: list[str], problem: str) -> None:
    with pytest.raises(InvalidInput, match=problem.replace("(", r"\(").replace(")", r"\)")):
        parse_benchmark(lines, source="b.jsonl")


def test_structured_choices_give_the_option_texts_and_must_agree_with_the_query() -> None:
    (item,) = parse_benchmark([_line(id="q", query="Q?\nA. split\nover lines\nB. y", answer="A",
                                     choices=["split\nover lines", "y"], answer_index=0)])
    assert item.options == {"A": "split\nover lines", "B": "y"} and item.stem == "Q?"


@pytest.mark.parametrize(("extra", "problem"), [
    ({"choices": ["x", "y", "z"]}, "3 choices but the query lists 2 options"),
    ({"choices": ["x", ""]}, "list of non-empty strings"),
    ({"answer_index": 0}, "answer_index 0 does not point at answer 'B'"),
    ({"answer_index": True}, "answer_index True"),
])
def test_structured_fields_that_contradict_the_query_are_rejected(extra: dict[str, object], problem: str) -> None:
    with pytest.raises(InvalidInput, match=problem):
        parse_benchmark([_line(id="q", query="Q?\nA. x\nB. y", answer="B", **extra)])
