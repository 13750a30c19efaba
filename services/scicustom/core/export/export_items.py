"""The questions of a finished build as every export format reads them.

A question comes from a line of benchmark.jsonl, parsed by the evaluation's parser (so an export
shows the same options `scicustom evaluate` scores), plus the provenance the build recorded.
Files built before `choices`/`answer_index` existed still export: the options then come from `query`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from scicustom.core.errors import InvalidInput
from scicustom.core.evaluation.benchmark_lines import LABELS, parse_item, parse_unique


@dataclass(frozen=True)
class ExportItem:
    id: str
    query: str                 # the paper's format: stem, then "A. ..." lines
    question: str              # the stem alone
    choices: tuple[str, ...]   # option texts in label order
    answer_index: int
    source: str
    licence: str
    units: tuple[str, ...]
    source_item_id: str
    candidate_rank: int
    distractor_method: str

    @property
    def answer(self) -> str:
        return LABELS[self.answer_index]

    @property
    def labels(self) -> list[str]:
        return list(LABELS[: len(self.choices)])


def _provenance(record: Mapping[str, Any], where: str) -> dict[str, Any]:
    provenance = record.get("provenance")
    if not isinstance(provenance, dict):
        raise InvalidInput(where, "missing provenance object")
    for key in ("source", "licence", "source_item_id"):
        if not isinstance(provenance.get(key), str) or not provenance[key]:
            raise InvalidInput(where, f"provenance has no {key!r}")
    units = provenance.get("units")
    if not isinstance(units, list) or not all(isinstance(u, str) for u in units):
        raise InvalidInput(where, "provenance units must be a list of unit names")
    rank = provenance.get("candidate_rank")
    if isinstance(rank, bool) or not isinstance(rank, int):
        raise InvalidInput(where, "provenance candidate_rank must be an integer")
    return provenance


def export_item(record: Mapping[str, Any], where: str) -> ExportItem:
    parsed = parse_item(record, where)
    provenance = _provenance(record, where)
    method = record.get("distractor_method", "original")
    if not isinstance(method, str):
        raise InvalidInput(where, "distractor_method must be a string")
    return ExportItem(
        id=parsed.id, query=parsed.query, question=parsed.stem, choices=tuple(parsed.options.values()),
        answer_index=LABELS.index(parsed.answer), source=provenance["source"], licence=provenance["licence"],
        units=tuple(provenance["units"]), source_item_id=provenance["source_item_id"],
        candidate_rank=provenance["candidate_rank"], distractor_method=method)


def export_items(lines: Iterable[str], source: str) -> list[ExportItem]:
    """Every question of a benchmark file, in file order; ids must be unique and there must be one."""
    return parse_unique(lines, source, export_item, "no questions to export (a thin build with an empty benchmark)")


# The columns of a question row, with what they hold: the README of an export lists them.
ROW_FIELDS = {
    "id": "the question's id (the corpus item it was made from)",
    "question": "the stem, without the options",
    "choices": "the option texts in label order (A, B, ...); 2 to 5 of them",
    "answer_index": "0-based index of the correct option in `choices`",
    "answer": "the correct option's label, A to E",
    "query": "the paper's format: the stem, then one line per option, `A. ...`",
    "source": "the data set the question came from",
    "licence": "that data set's licence",
    "units": "the knowledge units the question shares with the requirement",
    "source_item_id": "the corpus item's id",
    "candidate_rank": "0-based position of the item in the build's ordered candidate list",
    "distractor_method": "`original` (the source's options), `nearest-items` or `llm:<model>`",
}


def item_row(item: ExportItem) -> dict[str, Any]:
    """One question as a flat row of ROW_FIELDS."""
    return {"id": item.id, "question": item.question, "choices": list(item.choices),
            "answer_index": item.answer_index, "answer": item.answer, "query": item.query, "source": item.source,
            "licence": item.licence, "units": list(item.units), "source_item_id": item.source_item_id,
            "candidate_rank": item.candidate_rank, "distractor_method": item.distractor_method}


def fields_markdown() -> str:
    return "\n".join(f"- `{name}`: {meaning}" for name, meaning in ROW_FIELDS.items())
