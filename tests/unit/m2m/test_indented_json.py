"""The fast indented writer gives json.dumps(ensure_ascii=False, indent=n) byte for byte."""

from __future__ import annotations

import json
import math

from hypothesis import given, settings
from hypothesis import strategies as st

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
