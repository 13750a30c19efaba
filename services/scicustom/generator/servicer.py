"""GeneratorService: items -> MCQs as a build's generation stage makes them (`core.build.mcq.to_mcq`),
for stored corpus items or items given inline. The corpus is read only for what a request needs:
items for stored ids, tags and embeddings for offline distractors."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable, Sequence
from functools import cached_property
from typing import Any

import grpc

from scicustom.bootstrap import Context
from scicustom.core.build.llm_judges import LLMMCQWriter
from scicustom.core.build.mcq import MCQ, to_mcq
from scicustom.core.corpus_item import CorpusItem, make_item
from scicustom.core.errors import InvalidInput, NotFound, PreconditionFailed
from scicustom.core.requirement import Requirement
from scicustom.generator.distractor_corpus import DistractorCorpus
from scicustom.generator.v1 import generator_pb2 as pb
from scicustom.generator.v1 import generator_pb2_grpc as pb_grpc
from scicustom.grpc_server.field_checks import checked_list, checked_text
from scicustom.grpc_server.server import ServiceBinding
from scicustom.grpc_server.status_mapping import check_deadline

SERVICE_NAME = "scicustom.generator.v1.GeneratorService"
MAX_ITEMS = 1000
MAX_ID_CHARS = 256
MAX_QUESTION_CHARS = 8000
MAX_ANSWER_CHARS = 2000
MAX_OPTIONS = 10
MAX_ITEM_UNITS = 50
MAX_PROVENANCE_UNITS = 100
MAX_MODEL_CHARS = 200
MAX_DOMAIN_CHARS = 200
INLINE_SOURCE = "inline"


def benchmark_line(mcq: MCQ) -> str:
    """The question's line of benchmark.jsonl (builds/output_writer.canonical_jsonl), without the newline."""
    return json.dumps(mcq.to_record(), sort_keys=True, ensure_ascii=False)


@dataclasses.dataclass(frozen=True)
class CheckedItems:
    """The request's items, each with its provenance record and the units that lend it distractors:
    None for its tags (a stored item) or for the tagger's units (an inline item given none)."""

    items: list[CorpusItem]
    units: list[list[str] | None]
    inline: list[bool]
    provenance: list[dict[str, Any]]


class RequestCorpus:
    """What one request reads of the corpus: each part once, and only when an item needs it."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    @cached_property
    def items(self) -> list[CorpusItem]:
        items = self.ctx.corpus.load_items()
        if not items:
            raise PreconditionFailed("the corpus is empty; run `scicustom corpus import`")
        return items

    @cached_property
    def distractors(self) -> DistractorCorpus:
        return DistractorCorpus.load(self.ctx, self.items)


class GeneratorServicer(pb_grpc.GeneratorServiceServicer):
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    def ToMCQ(self, request: pb.ToMCQRequest, context: grpc.ServicerContext) -> pb.ToMCQResponse:
        checked_list(request.items, "items", MAX_ITEMS)
        writer, requirement = self._writer(request)
        corpus = RequestCorpus(self.ctx)
        checked = self._checked(request.items, corpus)

        def neighbours_of(position: int) -> Callable[[CorpusItem], list[str]]:
            def answers(item: CorpusItem) -> list[str]:
                units = checked.units[position]
                if units is None and checked.inline[position]:
                    units = self._tagged_units(item)
                return corpus.distractors.answers(item, units)
            return answers

        results, warnings = [], []
        for position, item in enumerate(checked.items):
            check_deadline(context)  # LLM writers take seconds per item
            mcq, notes = to_mcq(item, checked.provenance[position], request.seed, writer=writer,
                                requirement=requirement, neighbour_answers=neighbours_of(position))
            warnings.extend(notes)
            if mcq is None:
                results.append(pb.ItemResult(item_id=item.id, left_out=notes[-1]))
            else:
                results.append(pb.ItemResult(item_id=item.id, mcq=_mcq_message(mcq)))
        return pb.ToMCQResponse(results=results, warnings=warnings, mcq_writer=writer.name if writer else "")

    # -- request checks -------------------------------------------------------------------------------
    def _writer(self, request: pb.ToMCQRequest) -> tuple[LLMMCQWriter | None, Requirement]:
        if not request.mcq_writer_model:
            return None, Requirement(name="mcq", domain=request.domain, description="")
        model = checked_text(request.mcq_writer_model, "mcq_writer_model", MAX_MODEL_CHARS)
        domain = checked_text(request.domain, "domain", MAX_DOMAIN_CHARS)
        # The paper's MCQ prompt reads only the requirement's domain.
        return LLMMCQWriter(self.ctx.llm, model), Requirement(name="mcq", domain=domain, description="")

    def _checked(self, messages: Sequence[pb.ItemToConvert], corpus: RequestCorpus) -> CheckedItems:
        stored: dict[str, CorpusItem] = {}
        if any(m.WhichOneof("item") == "item_id" for m in messages):
            stored = {it.id: it for it in corpus.items}
        known_units = {u.id for u in self.ctx.catalog.units}
        scientific = {u.id for u in self.ctx.catalog.scientific()}
        checked = CheckedItems([], [], [], [])
        for i, message in enumerate(messages):
            where = f"items[{i}]"
            form = message.WhichOneof("item")
            if form is None:
                raise InvalidInput(where, "give item_id or inline")
            if form == "item_id":
                item_id = checked_text(message.item_id, f"{where}.item_id", MAX_ID_CHARS)
                if item_id not in stored:
                    raise NotFound(f"{where}.item_id", f"{item_id!r} is not a corpus item")
                checked.items.append(stored[item_id])
                checked.units.append(None)
                checked.inline.append(False)
            else:
                checked.items.append(_inline_item(message.inline, f"{where}.inline"))
                units = _unit_ids(message.inline.unit_ids, f"{where}.inline.unit_ids", known_units, MAX_ITEM_UNITS)
                # As a build reads an item's tags: only scientific units lend distractors.
                checked.units.append([u for u in units if u in scientific] if units else None)
                checked.inline.append(True)
            checked.provenance.append(self._provenance(checked.items[-1], message, where, known_units))
        return checked

    def _provenance(self, item: CorpusItem, message: pb.ItemToConvert, where: str,
                    known_units: set[str]) -> dict[str, Any]:
        """The build's provenance record; units and candidate rank only as far as the caller gave them."""
        units = _unit_ids(message.provenance.unit_ids, f"{where}.provenance.unit_ids", known_units,
                          MAX_PROVENANCE_UNITS)
        record: dict[str, Any] = {"source_item_id": item.id, "source": item.source, "licence": item.licence,
                                  "units": [self.ctx.catalog.by_id(u).name for u in units]}
        if message.provenance.HasField("candidate_rank"):
            record["candidate_rank"] = message.provenance.candidate_rank
        return record

    def _tagged_units(self, item: CorpusItem) -> list[str]:
        scientific = {u.id for u in self.ctx.catalog.scientific()}
        (tags,) = self.ctx.tagger.tag([item.text])
        return [t.unit_id for t in tags if t.unit_id in scientific]


def _unit_ids(values: Sequence[str], field: str, known: set[str], limit: int) -> list[str]:
    if len(values) > limit:
        raise InvalidInput(field, f"has {len(values)} entries, above the limit {limit}")
    for j, unit in enumerate(values):
        if unit not in known:
            raise InvalidInput(f"{field}[{j}]", f"{unit!r} is not a unit of the unit set")
    return list(values)


def _inline_item(message: pb.InlineItem, where: str) -> CorpusItem:
    """The item as the corpus import would store it (make_item), problems named by field."""
    checked_text(message.question, f"{where}.question", MAX_QUESTION_CHARS)
    if len(message.id) > MAX_ID_CHARS:
        raise InvalidInput(f"{where}.id", f"has {len(message.id)} characters, above the limit {MAX_ID_CHARS}")
    options = list(message.options)
    if options:
        if not 2 <= len(options) <= MAX_OPTIONS:
            raise InvalidInput(f"{where}.options", f"has {len(options)} options; give 2..{MAX_OPTIONS}")
        for j, option in enumerate(options):
            checked_text(option, f"{where}.options[{j}]", MAX_ANSWER_CHARS)
        if message.answer_index >= len(options):
            raise InvalidInput(f"{where}.answer_index", f"{message.answer_index} is not an option index "
                                                        f"(0..{len(options) - 1})")
        if message.answer:
            raise InvalidInput(f"{where}.answer", "give the answer of a multiple-choice item as answer_index")
    else:
        checked_text(message.answer, f"{where}.answer", MAX_ANSWER_CHARS)
        if message.answer_index:
            raise InvalidInput(f"{where}.answer_index", "an open item (no options) has no answer index")
    try:
        item = make_item(message.source or INLINE_SOURCE, message.licence, "", message.question, options,
                         message.answer_index if options else None, message.answer or None)
    except ValueError as exc:  # the checks above leave none; the corpus rules may grow
        raise InvalidInput(where, str(exc)) from None
    return dataclasses.replace(item, id=message.id) if message.id else item


def _mcq_message(mcq: MCQ) -> pb.MCQ:
    p = mcq.provenance
    provenance = pb.Provenance(source_item_id=p["source_item_id"], source=p["source"], licence=p["licence"],
                               units=p["units"])
    if "candidate_rank" in p:
        provenance.candidate_rank = p["candidate_rank"]
    return pb.MCQ(id=mcq.id, query=mcq.query, answer=mcq.answer, distractor_method=mcq.distractor_method,
                  provenance=provenance, record_json=benchmark_line(mcq))


def binding(ctx: Context) -> ServiceBinding:
    servicer = GeneratorServicer(ctx)
    return ServiceBinding(SERVICE_NAME,
                          lambda server: pb_grpc.add_GeneratorServiceServicer_to_server(servicer, server))
