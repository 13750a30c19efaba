"""GeneratorService over a loopback channel: the MCQs of the core functions and of a build's
generation stage, offline and with a recorded LLM writer."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence

import grpc
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scicustom.app.build.output_writer import canonical_jsonl
from scicustom.app.build.request import JuryOptions
from scicustom.app.build.world import assemble_world
from scicustom.app.distractor_corpus import DistractorCorpus
from scicustom.core.build.candidates import Candidate
from scicustom.core.build.mcq import MCQ, from_mcq_item, from_open_item, parse_llm_mcq, pick_distractors
from scicustom.core.build.pipeline import BuildParams, BuildPipeline
from scicustom.core.build.stage_records import CandidateList, Selection
from scicustom.core.corpus_item import CorpusItem, make_item
from scicustom.core.requirement import Requirement
from scicustom.generator.servicer import binding
from scicustom.generator.v1 import generator_pb2 as pb
from scicustom.generator.v1 import generator_pb2_grpc as pb_grpc
from scicustom.ports import UnitScore
from tests.support.grpc_loopback import invalid_field, loopback, rpc_error
from tests.unit.grpc_scorers_selector_generator.corpus_world import empty_context, tagged_context

SEED = 11
WRITER_REPLY = json.dumps({"query": "Which part protects the viral genome?\nA. capsid\nB. ribosome\nC. mitochondrion\n"
                                    "D. nucleolus", "answer": "A"})


class RecordingTagger:
    version = "recording-v1"

    def __init__(self, units: list[UnitScore]) -> None:
        self.units = units
        self.texts: list[str] = []

    def tag(self, texts: Sequence[str], vectors: object = None) -> list[list[UnitScore]]:
        self.texts.extend(texts)
        return [list(self.units) for _ in texts]


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    ctx = tagged_context(tmp_path_factory.mktemp("generator"))
    ctx.tagger = RecordingTagger([UnitScore("ns", 0.9), UnitScore("u3", 0.6)])
    with loopback([binding(ctx)]) as channel:
        yield ctx, pb_grpc.GeneratorServiceStub(channel)


def _items(ctx) -> dict[str, CorpusItem]:
    return {it.id: it for it in ctx.corpus.load_items()}


def _by_id(request_ids, **kwargs):
    return pb.ToMCQRequest(items=[pb.ItemToConvert(item_id=i) for i in request_ids], **kwargs)


def _record_line(mcq: MCQ) -> str:
    return canonical_jsonl([mcq.to_record()]).rstrip("\n")


def _stored_vector(ctx, item_id: str) -> np.ndarray:
    ids, matrix = ctx.corpus.load_embeddings(ctx.embedder.name)
    return matrix[ids.index(item_id)]


def _nearest_same_unit_answers(ctx, item: CorpusItem, units: list[str], vector: np.ndarray) -> list[str]:
    """By hand: every other tagged item sharing a unit, by descending dot product, then by id."""
    tags = ctx.corpus.load_tags("test-tagger-v1")
    ids, matrix = ctx.corpus.load_embeddings(ctx.embedder.name)
    row = {i: r for r, i in enumerate(ids)}
    items = _items(ctx)
    others = [i for i, t in tags.items() if i != item.id and {u for u, _ in t} & set(units)]
    ranked = sorted(others, key=lambda i: (-float(matrix[row[i]] @ vector), i))
    return [items[i].answer for i in ranked[:50]]


def test_stored_items_become_the_core_mcqs(world):
    ctx, stub = world
    items = _items(ctx)
    mcq_item = next(it for it in items.values() if it.format == "mcq" and len(it.options) == 4)
    open_item = next(it for it in items.values() if it.format == "open" and it.subject == "Anatomy")
    request = _by_id([mcq_item.id, open_item.id], seed=SEED)
    request.items[1].provenance.unit_ids.append("u3")
    request.items[1].provenance.candidate_rank = 4
    response = stub.ToMCQ(request, timeout=30)
    assert [r.item_id for r in response.results] == [mcq_item.id, open_item.id]
    assert list(response.warnings) == [] and response.mcq_writer == ""

    kept = from_mcq_item(mcq_item, {"source_item_id": mcq_item.id, "source": "synthetic", "licence": "CC-BY",
                                    "units": []})
    first = response.results[0].mcq
    assert (first.query, first.answer, first.distractor_method) == (kept.query, kept.answer, "original")
    assert first.record_json == _record_line(kept)

    neighbours = _nearest_same_unit_answers(ctx, open_item, ["u3"], _stored_vector(ctx, open_item.id))
    distractors = pick_distractors(open_item.answer, neighbours)
    assert len(distractors) == 3 and open_item.answer not in distractors
    made = from_open_item(open_item, distractors, SEED, {"source_item_id": open_item.id, "source": "synthetic",
                                                         "licence": "CC0", "units": ["Anatomy"], "candidate_rank": 4})
    second = response.results[1].mcq
    assert (second.query, second.answer, second.distractor_method) == (made.query, made.answer, "nearest-items")
    assert second.record_json == _record_line(made)
    assert list(second.provenance.units) == ["Anatomy"] and second.provenance.candidate_rank == 4
    assert not first.provenance.HasField("candidate_rank")


def test_the_same_questions_and_warnings_as_a_build_generation_stage(world):
    """Every corpus item through ToMCQ and through BuildPipeline.stage_generate of an assembled world."""
    ctx, stub = world
    requirement = Requirement(name="virology", domain="Virology", description="Viruses and their replication")
    build, _ = assemble_world(ctx, requirement, SEED, JuryOptions(), lambda stage, done, total: None)
    tags = ctx.corpus.load_tags("test-tagger-v1")
    ids = sorted(build.items)
    candidates = [Candidate(i, tuple(u for u, _ in tags[i] if u != "ns"), 1.0) for i in ids]
    generated = BuildPipeline(build).stage_generate(requirement, BuildParams(seed=SEED), CandidateList(candidates, {}),
                                                    Selection(list(range(len(ids))), []))
    request = _by_id(ids, seed=SEED)
    for position, (message, candidate) in enumerate(zip(request.items, candidates, strict=True)):
        message.provenance.unit_ids.extend(candidate.shared_units)
        message.provenance.candidate_rank = position
    response = stub.ToMCQ(request, timeout=60)
    made = [r.mcq.record_json for r in response.results if r.WhichOneof("outcome") == "mcq"]
    assert "\n".join(made) + "\n" == canonical_jsonl(m.to_record() for m in generated.benchmark)
    assert list(response.warnings) == generated.warnings
    left_out = {r.item_id: r.left_out for r in response.results if r.WhichOneof("outcome") == "left_out"}
    assert len(left_out) == 5  # four six-option items and the item with no scientific unit
    assert sum("options exceed A-E" in w for w in left_out.values()) == 4
    # The neighbour function is the build's, item for item.
    corpus = DistractorCorpus.load(ctx, ctx.corpus.load_items())
    for item in build.items.values():
        if item.format == "open":
            assert corpus.answers(item) == build.neighbour_answers(item)


def test_inline_items(world):
    ctx, stub = world
    choice = pb.InlineItem(question="Which bone is longest?", options=["femur", "tibia", "ulna"], answer_index=0,
                           source="quiz", licence="CC0")
    open_given_units = pb.InlineItem(question="Name the main bone of the thigh.", answer="The femur bone",
                                     unit_ids=["u3"])
    open_tagged = pb.InlineItem(id="my-7", question="Which chamber pumps blood to the body?",
                                answer="The left ventricle")
    request = pb.ToMCQRequest(items=[pb.ItemToConvert(inline=choice), pb.ItemToConvert(inline=open_given_units),
                                     pb.ItemToConvert(inline=open_tagged)], seed=SEED)
    tagger = ctx.tagger
    tagger.texts.clear()
    response = stub.ToMCQ(request, timeout=30)
    as_item = make_item("quiz", "CC0", "", "Which bone is longest?", ["femur", "tibia", "ulna"], 0)
    assert response.results[0].item_id == as_item.id
    assert response.results[0].mcq.record_json == _record_line(
        from_mcq_item(as_item, {"source_item_id": as_item.id, "source": "quiz", "licence": "CC0", "units": []}))
    for result, message in zip(response.results[1:], (open_given_units, open_tagged), strict=True):
        item = make_item("inline", "", "", message.question, [], None, message.answer)
        if message.id:
            assert result.item_id == "my-7"
            item = dataclasses.replace(item, id="my-7")
        vector = ctx.embedder.encode([item.text])[0]
        distractors = pick_distractors(item.answer, _nearest_same_unit_answers(ctx, item, ["u3"], vector))
        expected = from_open_item(item, distractors, SEED, {"source_item_id": item.id, "source": "inline",
                                                            "licence": "", "units": []})
        assert result.mcq.record_json == _record_line(expected)
    # Only the item without units was tagged; the tagger's non-scientific unit lends nothing.
    assert tagger.texts == ["Which chamber pumps blood to the body?\nAnswer: The left ventricle"]


TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1, max_size=40).filter(
    str.strip)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(question=TEXT, options=st.lists(TEXT, min_size=2, max_size=7), pick=st.integers(0, 6), seed=st.integers(0, 99))
def test_any_inline_choice_item_is_the_core_mcq(world, question, options, pick, seed):
    _, stub = world
    answer_index = pick % len(options)
    message = pb.InlineItem(question=question, options=options, answer_index=answer_index, source="s")
    (result,) = stub.ToMCQ(pb.ToMCQRequest(items=[pb.ItemToConvert(inline=message)], seed=seed), timeout=10).results
    item = make_item("s", "", "", question, options, answer_index)
    assert result.item_id == item.id
    if len(options) > 5:
        assert result.left_out == f"{item.id}: {len(options)} options exceed A-E; left out"
    else:
        provenance = {"source_item_id": item.id, "source": "s", "licence": "", "units": []}
        assert result.mcq.record_json == _record_line(from_mcq_item(item, provenance))
        assert result.mcq.answer == "ABCDE"[answer_index]


def test_llm_writer_and_its_fallback(tmp_path, recorded_llm):
    ctx = tagged_context(tmp_path, llm_api_base=recorded_llm.api_base, llm_api_key="test")
    items = _items(ctx)
    anatomy = sorted(i for i, it in items.items() if it.format == "open" and it.subject == "Anatomy")
    good, bad = items[anatomy[0]], items[anatomy[1]]
    recorded_llm.rules.append((good.question, WRITER_REPLY))
    recorded_llm.rules.append((bad.question, "Sorry, no JSON today."))
    with loopback([binding(ctx)]) as channel:
        response = pb_grpc.GeneratorServiceStub(channel).ToMCQ(
            _by_id([good.id, bad.id], seed=SEED, mcq_writer_model="openai/writer", domain="Anatomy"), timeout=30)
    assert response.mcq_writer == "llm:openai/writer"
    query, answer = parse_llm_mcq(WRITER_REPLY)
    written = response.results[0].mcq
    assert (written.query, written.answer, written.distractor_method) == (query, answer, "llm:openai/writer")
    fallback = response.results[1].mcq
    assert fallback.distractor_method == "nearest-items"
    assert list(response.warnings) == [f"{bad.id}: LLM MCQ unusable (no JSON object in the reply); used "
                                       "nearest-item distractors"]
    prompts = [c["messages"] for c in recorded_llm.calls]
    assert len(prompts) == 2 and "Anatomy" in prompts[0][0]["content"]  # the domain is the prompt's


def test_bad_requests_name_the_field(world):
    ctx, stub = world
    call = stub.ToMCQ
    some_id = sorted(_items(ctx))[0]
    assert invalid_field(lambda: call(pb.ToMCQRequest(), timeout=5)) == "items: is empty"
    assert invalid_field(lambda: call(pb.ToMCQRequest(items=[pb.ItemToConvert()]), timeout=5)) == \
        "items[0]: give item_id or inline"
    out_of_range = pb.InlineItem(question="Q?", options=["a", "b"], answer_index=2)
    assert invalid_field(lambda: call(pb.ToMCQRequest(items=[pb.ItemToConvert(item_id=some_id),
                                                            pb.ItemToConvert(inline=out_of_range)]), timeout=5)) == \
        "items[1].inline.answer_index: 2 is not an option index (0..1)"
    no_answer = pb.InlineItem(question="Q?")
    assert invalid_field(lambda: call(pb.ToMCQRequest(items=[pb.ItemToConvert(inline=no_answer)]), timeout=5)) == \
        "items[0].inline.answer: is empty"
    blank_option = pb.InlineItem(question="Q?", options=["a", " "])
    assert invalid_field(lambda: call(pb.ToMCQRequest(items=[pb.ItemToConvert(inline=blank_option)]), timeout=5)) \
        == "items[0].inline.options[1]: is empty"
    bad_unit = pb.InlineItem(question="Q?", answer="A", unit_ids=["u1", "zz"])
    assert invalid_field(lambda: call(pb.ToMCQRequest(items=[pb.ItemToConvert(inline=bad_unit)]), timeout=5)) == \
        "items[0].inline.unit_ids[1]: 'zz' is not a unit of the unit set"
    bad_provenance = pb.ItemToConvert(item_id=some_id, provenance=pb.ProvenanceInput(unit_ids=["nope"]))
    assert invalid_field(lambda: call(pb.ToMCQRequest(items=[bad_provenance]), timeout=5)) == \
        "items[0].provenance.unit_ids[0]: 'nope' is not a unit of the unit set"
    no_domain = _by_id([some_id], mcq_writer_model="openai/writer")
    assert invalid_field(lambda: call(no_domain, timeout=5)) == "domain: is empty"
    too_many = _by_id([some_id] * 1001)
    assert invalid_field(lambda: call(too_many, timeout=5)) == "items: has 1001 entries, above the limit 1000"


def test_unknown_items_and_an_empty_corpus(world, tmp_path):
    _, stub = world
    error = rpc_error(lambda: stub.ToMCQ(_by_id(["synthetic-0000"]), timeout=5))
    assert error.code() == grpc.StatusCode.NOT_FOUND
    assert error.details() == "items[0].item_id: 'synthetic-0000' is not a corpus item"
    with loopback([binding(empty_context(tmp_path))]) as channel:
        stub = pb_grpc.GeneratorServiceStub(channel)
        error = rpc_error(lambda: stub.ToMCQ(_by_id(["x"]), timeout=5))
        assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
        # An inline multiple-choice item needs no corpus at all.
        inline = pb.InlineItem(question="2 + 2?", options=["3", "4"], answer_index=1)
        response = stub.ToMCQ(pb.ToMCQRequest(items=[pb.ItemToConvert(inline=inline)]), timeout=5)
        assert response.results[0].mcq.answer == "B"
