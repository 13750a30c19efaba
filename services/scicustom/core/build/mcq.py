"""Turning selected items into multiple-choice questions (SciCustom section 2.5, Appendix G).

An item that is already multiple choice is kept verbatim (options relabelled A-E). An open item
gets 3-4 distractors: from an LLM with the paper's MCQ prompt, or offline from the answers of the
nearest corpus items sharing its units, never equal to its answer. Exactly one label is correct.

A record keeps the paper's `query` (stem and labelled options in one text) and `answer` (the label),
and the same question structured: `choices` (the option texts in label order) and `answer_index`.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from scicustom.core.corpus_item import CorpusItem, normalise_text
from scicustom.core.evaluation.benchmark_lines import split_query
from scicustom.core.quantities import answer_shape
from scicustom.core.requirement import Requirement
from scicustom.ports import MCQWriter

MCQ_LABELS = "ABCDE"
OFFLINE_DISTRACTORS = 3
MIN_DISTRACTORS = 3  # from_open_item takes 3-4


@dataclass(frozen=True)
class MCQ:
    id: str
    query: str
    answer: str
    provenance: dict[str, Any] = field(default_factory=dict)
    distractor_method: str = "original"
    # The options of `query` in label order, without their "A. " labels. Keyword-only and required:
    # a question whose options were not recorded would give exports nothing to show.
    choices: tuple[str, ...] = field(kw_only=True)

    def __post_init__(self) -> None:
        if not 2 <= len(self.choices) <= len(MCQ_LABELS):
            raise ValueError(f"{self.id}: {len(self.choices)} choices; a question has 2-{len(MCQ_LABELS)}")
        if self.answer not in MCQ_LABELS[: len(self.choices)]:
            raise ValueError(f"{self.id}: answer {self.answer!r} is not a label of its {len(self.choices)} choices")

    @property
    def answer_index(self) -> int:
        return MCQ_LABELS.index(self.answer)

    def to_record(self) -> dict[str, Any]:
        return {"id": self.id, "query": self.query, "answer": self.answer, "choices": list(self.choices),
                "answer_index": self.answer_index, "provenance": self.provenance,
                "distractor_method": self.distractor_method}


def format_query(stem: str, options: Sequence[str]) -> str:
    lines = [stem.strip()] + [f"{MCQ_LABELS[i]}. {opt.strip()}" for i, opt in enumerate(options)]
    return "\n".join(lines)


def _shown(options: Sequence[str]) -> tuple[str, ...]:
    """The option texts exactly as format_query shows them after their labels."""
    return tuple(opt.strip() for opt in options)


def option_texts(query: str) -> tuple[str, ...]:
    """The options of a query written elsewhere (an LLM's), read as evaluation reads them."""
    return tuple(split_query(query)[1].values())


def from_mcq_item(item: CorpusItem, provenance: dict[str, Any]) -> MCQ:
    if item.answer_index is None or not 2 <= len(item.options) <= len(MCQ_LABELS):
        raise ValueError(f"{item.id}: not a multiple-choice item with 2-5 options")
    return MCQ(item.id, format_query(item.question, item.options), MCQ_LABELS[item.answer_index], provenance,
               choices=_shown(item.options))


def pick_distractors(answer: str, neighbour_answers: Sequence[str], count: int = OFFLINE_DISTRACTORS) -> list[str]:
    """Nearest-first answers of neighbouring items of the answer's shape (a quantity of the same unit,
    a bare number, or text: "5000 ng" beside "Increase in temperature" gives the key away),
    de-duplicated, never equal to the answer."""
    taken = {normalise_text(answer)}
    shape = answer_shape(answer)
    chosen = []
    for text in neighbour_answers:
        key = normalise_text(text)
        if not key or key in taken or answer_shape(text) != shape:
            continue
        taken.add(key)
        chosen.append(text.strip())
        if len(chosen) == count:
            break
    return chosen


def answer_slot(item_id: str, seed: int, n_options: int) -> int:
    """Where the correct option goes: a reproducible function of item and seed."""
    digest = hashlib.sha256(f"{seed}:{item_id}".encode()).digest()
    return int.from_bytes(digest[:4], "big") % n_options


def from_open_item(item: CorpusItem, distractors: Sequence[str], seed: int, provenance: dict[str, Any]) -> MCQ:
    if not 3 <= len(distractors) <= 4:
        raise ValueError(f"{item.id}: needs 3-4 distractors, got {len(distractors)}")
    slot = answer_slot(item.id, seed, len(distractors) + 1)
    options = list(distractors)
    options.insert(slot, item.answer)
    return MCQ(item.id, format_query(item.question, options), MCQ_LABELS[slot], provenance, "nearest-items",
               choices=_shown(options))


_OPTION_LINE = re.compile(r"^\s*\(?([A-E])[.):]\s+\S", re.MULTILINE)


def parse_llm_mcq(text: str) -> tuple[str, str]:
    """The JSON object of the paper's MCQ prompt -> (query, answer label); ValueError if unusable."""
    match = re.search(r"\{.*\}", text, re.DOTALL)
    if not match:
        raise ValueError("no JSON object in the reply")
    try:
        obj = json.loads(match.group(0))
    except json.JSONDecodeError as exc:
        raise ValueError(f"reply is not valid JSON: {exc}") from None
    query, answer = obj.get("query"), str(obj.get("answer", "")).strip().strip("().").upper()
    if not isinstance(query, str) or not query.strip():
        raise ValueError("reply has no query")
    labels = _OPTION_LINE.findall(query)
    if labels != list(MCQ_LABELS[: len(labels)]) or not 4 <= len(labels) <= 5:
        raise ValueError(f"options are not labelled A-D or A-E on their own lines: {labels}")
    if answer not in labels:
        raise ValueError(f"answer {answer!r} is not one of the option labels")
    return query.strip(), answer

def to_mcq(item: CorpusItem, provenance: dict[str, Any], seed: int, *, writer: MCQWriter | None,
           requirement: Requirement, neighbour_answers: Callable[[CorpusItem], list[str]]
           ) -> tuple[MCQ | None, list[str]]:
    """The question (None when the item is left out) and the warnings a build records for it."""
    if item.format == "mcq":
        if len(item.options) > len(MCQ_LABELS):
            return None, [f"{item.id}: {len(item.options)} options exceed A-E; left out"]
        return from_mcq_item(item, provenance), []
    warnings: list[str] = []
    if writer is not None:
        try:
            query, answer = parse_llm_mcq(writer.write(requirement, item))
            return MCQ(item.id, query, answer, provenance, writer.name, choices=option_texts(query)), warnings
        except ValueError as exc:
            warnings.append(f"{item.id}: LLM MCQ unusable ({exc}); used nearest-item distractors")
    distractors = pick_distractors(item.answer, neighbour_answers(item))
    if len(distractors) < MIN_DISTRACTORS:
        warnings.append(f"{item.id}: only {len(distractors)} distinct distractors found; left out")
        return None, warnings
    return from_open_item(item, distractors, seed, provenance), warnings
