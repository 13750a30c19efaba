"""One selected item -> its multiple-choice question, for the build and GeneratorService alike.

A multiple-choice item is kept (more than five options cannot be labelled A-E: left out); an open
item is written by the LLM MCQ writer when there is one, and otherwise, or when its reply is
unusable, gets the nearest distinct neighbour answers as distractors (fewer than three: left out).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from scicustom.core.corpus_item import CorpusItem
from scicustom.core.mcq import (
    MCQ,
    MCQ_LABELS,
    from_mcq_item,
    from_open_item,
    parse_llm_mcq,
    pick_distractors,
)
from scicustom.core.requirement import Requirement
from scicustom.ports import MCQWriter

MIN_DISTRACTORS = 3  # from_open_item takes 3-4


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
            return MCQ(item.id, query, answer, provenance, writer.name), warnings
        except ValueError as exc:
            warnings.append(f"{item.id}: LLM MCQ unusable ({exc}); used nearest-item distractors")
    distractors = pick_distractors(item.answer, neighbour_answers(item))
    if len(distractors) < MIN_DISTRACTORS:
        warnings.append(f"{item.id}: only {len(distractors)} distinct distractors found; left out")
        return None, warnings
    return from_open_item(item, distractors, seed, provenance), warnings
