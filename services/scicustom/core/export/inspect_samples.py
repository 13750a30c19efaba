"""Records that inspect_ai reads as `Sample`s with no field mapping: `json_dataset(path)` maps
`input`, `choices`, `target` and `id` by name and takes `metadata` as it is."""

from __future__ import annotations

from typing import Any

from scicustom.core.export.export_items import ExportItem


def inspect_sample(item: ExportItem, requirement_name: str) -> dict[str, Any]:
    # input is the stem: inspect's multiple_choice() solver lists the choices itself, lettered A, B, ...
    return {"id": item.id, "input": item.question, "choices": list(item.choices), "target": item.answer,
            "metadata": {"requirement": requirement_name, "query": item.query, "answer_index": item.answer_index,
                         "source": item.source, "licence": item.licence, "units": list(item.units),
                         "source_item_id": item.source_item_id, "candidate_rank": item.candidate_rank,
                         "distractor_method": item.distractor_method}}
