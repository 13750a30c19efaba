"""The fast indented writers (indented_json, and scores_text for scores documents) give
json.dumps(ensure_ascii=False, indent=n) byte for byte."""

from __future__ import annotations

import json
import math

from hypothesis import given, settings
from hypothesis import strategies as st

from scicustom.app.scoring.scores_text import scores_text
from scicustom.core.indented_json import indented_json

SCALARS = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), st.text(max_size=6))
VALUES = st.recursive(SCALARS, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                       st.dictionaries(st.text(max_size=4), inner, max_size=4)),
                      max_leaves=30)


@settings(max_examples=400, deadline=None)
@given(value=VALUES, indent=st.integers(0, 3))
def test_same_text_as_json_dumps(value: object, indent: int) -> None:
    assert indented_json(value, indent) == json.dumps(value, ensure_ascii=False, indent=indent)


def test_scores_shape_and_keys_json_converts_itself() -> None:
    document = {"p1": {"rcf": 0.5, "sns": None, "sub": {"rcf_num_steps": 3, "x": math.inf}}, "p2": {"sub": {}}}
    assert indented_json(document) == json.dumps(document, ensure_ascii=False, indent=1)
    assert indented_json({1: [2], None: 1.5}) == json.dumps({1: [2], None: 1.5}, ensure_ascii=False, indent=1)


NUMBERS = st.one_of(st.none(), st.booleans(), st.integers(), st.floats())
MEMBERS = st.one_of(NUMBERS, st.text(max_size=3), st.lists(NUMBERS, max_size=2))
SUBS = st.dictionaries(st.text(max_size=4), MEMBERS, max_size=4)
ROWS = st.dictionaries(st.text(max_size=4), st.one_of(MEMBERS, SUBS), max_size=5)


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(st.text(max_size=4), ROWS | st.dictionaries(st.text(max_size=4), ROWS, max_size=3), max_size=4))
def test_scores_text_is_json_dumps(document: dict[str, object]) -> None:
    """Scores documents ({id: row} or {system: {id: row}}) and anything else, byte for byte."""
    assert scores_text(document) == json.dumps(document, ensure_ascii=False, indent=1)


def test_scores_text_of_rows_of_numbers() -> None:
    row = {"rcf": 0.5, "sns": None, "cbs": 1e-05, "sub": {"rcf_num_steps": 3, "x": math.inf, '{"k}': -0.0}}
    for document in ({"p1": row, "p{2}": {**row, "rcf": 0.25}}, {"system A": {"p1": row}, "B": {"p1": row}}):
        assert scores_text(document) == json.dumps(document, ensure_ascii=False, indent=1)
