"""One row per question for spreadsheets: the options in columns A.. (as many as the longest
question has; shorter questions leave the rest empty) and the answer as a label and an index."""

from __future__ import annotations

from collections.abc import Sequence

from scicustom.core.evaluation.benchmark_lines import LABELS
from scicustom.core.export.export_items import ExportItem

UNIT_SEPARATOR = "; "


def csv_table(items: Sequence[ExportItem]) -> list[list[str | int]]:
    """Header row, then one row per question."""
    width = max(len(item.choices) for item in items)
    header: list[str | int] = ["id", "question", *LABELS[:width], "answer", "answer_index", "source", "licence",
                               "units", "source_item_id", "candidate_rank", "distractor_method"]
    rows = [header]
    for item in items:
        options = [*item.choices, *[""] * (width - len(item.choices))]
        rows.append([item.id, item.question, *options, item.answer, item.answer_index, item.source, item.licence,
                     UNIT_SEPARATOR.join(item.units), item.source_item_id, item.candidate_rank,
                     item.distractor_method])
    return rows
