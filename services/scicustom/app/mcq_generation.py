"""Items -> MCQs as a build's generation stage makes them (`core.build.mcq.to_mcq`), for stored corpus
items or items given inline (GeneratorService's use case). The corpus is read only for what a
request needs: items for stored ids, tags and embeddings for offline distractors."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from functools import cached_property
from typing import Any

from scicustom.app.components import Components
from scicustom.app.distractor_corpus import DistractorCorpus
from scicustom.app.field_checks import checked_list, checked_text
from scicustom.core.build.llm_judges import LLMMCQWriter
from scicustom.core.build.mcq import MCQ, to_mcq
from scicustom.core.corpus_item import CorpusItem, make_item
from scicustom.core.errors import InvalidInput, NotFound, PreconditionFailed
from scicustom.core.requirement import Requirement

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


@dataclasses.dataclass(frozen=True)
class InlineItem:
    """An item given in the request, in the corpus import's terms."""

    question: str
    options: list[str]
    answer_index: int = 0
    answer: str = ""
    id: str = ""
    source: str = ""
    licence: str = ""
    unit_ids: list[str] = dataclasses.field(default_factory=list)  # the units that lend it distractors


@dataclasses.dataclass(frozen=True)
class ItemToConvert:
    """A stored item (`item_id`) or an inline one, with what the caller knows of its provenance."""

    item_id: str | None = None
    inline: InlineItem | None = None
    provenance_unit_ids: list[str] = dataclasses.field(default_factory=list)
    candidate_rank: int | None = None


@dataclasses.dataclass(frozen=True)
class ItemResult:
    item_id: str
    mcq: MCQ | None
    left_out: str  # why there is no MCQ


@dataclasses.dataclass(frozen=True)
class Conversion:
    results: list[ItemResult]
    warnings: list[str]
    mcq_writer: str  # empty for the offline writer


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

    def __init__(self, components: Components) -> None:
        self.components = components

    @cached_property
    def items(self) -> list[CorpusItem]:
        items = self.components.corpus.load_items()
        if not items:
            raise PreconditionFailed("the corpus is empty; run `scicustom corpus import`")
        return items

    @cached_property
    def distractors(self) -> DistractorCorpus:
        return DistractorCorpus.load(self.components, self.items)


class MCQGenerator:
    def __init__(self, components: Components) -> None:
        self.components = components

    def convert(self, given: Sequence[ItemToConvert], seed: int, writer_model: str, domain: str,
                still_wanted: Callable[[], None]) -> Conversion:
        """`writer_model` empty: the offline writer; `still_wanted` raises once the caller has gone."""
        checked_list(given, "items", MAX_ITEMS)
        writer, requirement = self._writer(writer_model, domain)
        corpus = RequestCorpus(self.components)
        checked = self._checked(given, corpus)

        def neighbours_of(position: int) -> Callable[[CorpusItem], list[str]]:
            def answers(item: CorpusItem) -> list[str]:
                units = checked.units[position]
                if units is None and checked.inline[position]:
                    units = self._tagged_units(item)
                return corpus.distractors.answers(item, units)
            return answers

        results, warnings = [], []
        for position, item in enumerate(checked.items):
            still_wanted()  # LLM writers take seconds per item
            mcq, notes = to_mcq(item, checked.provenance[position], seed, writer=writer,
                                requirement=requirement, neighbour_answers=neighbours_of(position))
            warnings.extend(notes)
            results.append(ItemResult(item.id, mcq, notes[-1] if mcq is None else ""))
        return Conversion(results, warnings, writer.name if writer else "")

    # -- request checks -------------------------------------------------------------------------------
    def _writer(self, model: str, domain: str) -> tuple[LLMMCQWriter | None, Requirement]:
        if not model:
            return None, Requirement(name="mcq", domain=domain, description="")
        model = checked_text(model, "mcq_writer_model", MAX_MODEL_CHARS)
        domain = checked_text(domain, "domain", MAX_DOMAIN_CHARS)
        # The paper's MCQ prompt reads only the requirement's domain.
        return LLMMCQWriter(self.components.llm, model), Requirement(name="mcq", domain=domain, description="")

    def _checked(self, given: Sequence[ItemToConvert], corpus: RequestCorpus) -> CheckedItems:
        stored: dict[str, CorpusItem] = {}
        if any(m.item_id is not None for m in given):
            stored = {it.id: it for it in corpus.items}
        catalog = self.components.catalog
        known_units = {u.id for u in catalog.units}
        scientific = {u.id for u in catalog.scientific()}
        checked = CheckedItems([], [], [], [])
        for i, message in enumerate(given):
            where = f"items[{i}]"
            if message.item_id is not None:
                item_id = checked_text(message.item_id, f"{where}.item_id", MAX_ID_CHARS)
                if item_id not in stored:
                    raise NotFound(f"{where}.item_id", f"{item_id!r} is not a corpus item")
                checked.items.append(stored[item_id])
                checked.units.append(None)
                checked.inline.append(False)
            elif message.inline is not None:
                checked.items.append(_inline_item(message.inline, f"{where}.inline"))
                units = _unit_ids(message.inline.unit_ids, f"{where}.inline.unit_ids", known_units, MAX_ITEM_UNITS)
                # As a build reads an item's tags: only scientific units lend distractors.
                checked.units.append([u for u in units if u in scientific] if units else None)
                checked.inline.append(True)
            else:
                raise InvalidInput(where, "give item_id or inline")
            checked.provenance.append(self._provenance(checked.items[-1], message, where, known_units))
        return checked

    def _provenance(self, item: CorpusItem, message: ItemToConvert, where: str,
                    known_units: set[str]) -> dict[str, Any]:
        """The build's provenance record; units and candidate rank only as far as the caller gave them."""
        units = _unit_ids(message.provenance_unit_ids, f"{where}.provenance.unit_ids", known_units,
                          MAX_PROVENANCE_UNITS)
        record: dict[str, Any] = {"source_item_id": item.id, "source": item.source, "licence": item.licence,
                                  "units": [self.components.catalog.by_id(u).name for u in units]}
        if message.candidate_rank is not None:
            record["candidate_rank"] = message.candidate_rank
        return record

    def _tagged_units(self, item: CorpusItem) -> list[str]:
        scientific = {u.id for u in self.components.catalog.scientific()}
        (tags,) = self.components.tagger.tag([item.text])
        return [t.unit_id for t in tags if t.unit_id in scientific]


def _unit_ids(values: Sequence[str], field: str, known: set[str], limit: int) -> list[str]:
    if len(values) > limit:
        raise InvalidInput(field, f"has {len(values)} entries, above the limit {limit}")
    for j, unit in enumerate(values):
        if unit not in known:
            raise InvalidInput(f"{field}[{j}]", f"{unit!r} is not a unit of the unit set")
    return list(values)


def _inline_item(given: InlineItem, where: str) -> CorpusItem:
    """The item as the corpus import would store it (make_item), problems named by field."""
    checked_text(given.question, f"{where}.question", MAX_QUESTION_CHARS)
    if len(given.id) > MAX_ID_CHARS:
        raise InvalidInput(f"{where}.id", f"has {len(given.id)} characters, above the limit {MAX_ID_CHARS}")
    options = list(given.options)
    if options:
        if not 2 <= len(options) <= MAX_OPTIONS:
            raise InvalidInput(f"{where}.options", f"has {len(options)} options; give 2..{MAX_OPTIONS}")
        for j, option in enumerate(options):
            checked_text(option, f"{where}.options[{j}]", MAX_ANSWER_CHARS)
        if given.answer_index >= len(options):
            raise InvalidInput(f"{where}.answer_index", f"{given.answer_index} is not an option index "
                                                        f"(0..{len(options) - 1})")
        if given.answer:
            raise InvalidInput(f"{where}.answer", "give the answer of a multiple-choice item as answer_index")
    else:
        checked_text(given.answer, f"{where}.answer", MAX_ANSWER_CHARS)
        if given.answer_index:
            raise InvalidInput(f"{where}.answer_index", "an open item (no options) has no answer index")
    try:
        item = make_item(given.source or INLINE_SOURCE, given.licence, "", given.question, options,
                         given.answer_index if options else None, given.answer or None)
    except ValueError as exc:  # the checks above leave none; the corpus rules may grow
        raise InvalidInput(where, str(exc)) from None
    return dataclasses.replace(item, id=given.id) if given.id else item
