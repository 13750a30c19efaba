from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scicustom.artifacts.codec import (
    build_spec_from_proto,
    build_spec_to_proto,
    item_from_proto,
    item_to_proto,
    mcq_from_proto,
    mcq_to_proto,
    unit_from_proto,
    unit_to_proto,
)
from scicustom.artifacts.v1 import artifacts_pb2 as pb
from scicustom.core.build.mcq import MCQ
from scicustom.core.build.pipeline import BuildParams
from scicustom.core.corpus_item import make_item
from scicustom.core.errors import InvalidInput
from scicustom.core.requirement import requirement_from_text
from scicustom.core.units import KnowledgeUnit

text = st.text(min_size=1, max_size=30).filter(str.strip)


@given(text, st.lists(text, min_size=2, max_size=5, unique=True), st.data())
def test_items_survive_the_wire(question, options, data):
    answer = data.draw(st.integers(0, len(options) - 1))
    item = make_item("src", "MIT", "subj", question, options, answer)
    msg = pb.CorpusItem.FromString(item_to_proto(item, ["ku_1"], 12.5, 60.0).SerializeToString())
    assert item_from_proto(msg) == item
    assert list(msg.unit_ids) == ["ku_1"] and msg.hardness == 12.5


def test_open_item_and_unit_and_mcq_round_trip():
    item = make_item("user", "CC0", "", "What?", [], None, "That")
    assert item_from_proto(item_to_proto(item)) == item
    unit = KnowledgeUnit("ku_9", "Virology", "medicine", ("virus", "capsid"))
    assert unit_from_proto(unit_to_proto(unit)) == unit
    mcq = MCQ("i1", "Q?\nA. x\nB. y", "B", {"source_item_id": "i1", "source": "mmlu", "licence": "MIT",
                                              "units": ["Virology"], "candidate_rank": 3}, choices=("x", "y"))
    assert mcq_from_proto(pb.MCQ.FromString(mcq_to_proto(mcq).SerializeToString())) == mcq


def test_build_spec_round_trip_and_validation():
    req = requirement_from_text("pericyclic reactions")
    params = BuildParams(method="greedy-topk", k1=5, k2=50, proxy_samples=20, seed=9)
    got_req, got_params = build_spec_from_proto(build_spec_to_proto(req, params, ["a", "b", "c"], ["d"]))
    assert got_params == params and got_req.description == req.description
    with pytest.raises(InvalidInput, match="method"):
        build_spec_from_proto(pb.BuildSpec(method="nope", k1=1, k2=1, proxy_samples=1))


def test_unspecified_format_is_rejected():
    with pytest.raises(ValueError, match="unspecified"):
        item_from_proto(pb.CorpusItem(id="x"))
