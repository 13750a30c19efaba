"""The description every export carries (README.md; the dataset card of the Hugging Face export):
the requirement, the voted units, the licence of every source with its question count, and the
provenance needed to rebuild the benchmark. Markdown text, plus the card's YAML header as a dict."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from typing import Any

from scicustom.core.export.build_facts import BuildFacts
from scicustom.core.export.export_items import ExportItem


def licence_counts(items: Sequence[ExportItem]) -> list[tuple[str, str, int]]:
    """(source, licence, questions), most questions first, then by name."""
    counts = Counter((item.source, item.licence) for item in items)
    return sorted(((s, lic, n) for (s, lic), n in counts.items()), key=lambda row: (-row[2], row[0], row[1]))


def _cell(value: object) -> str:
    """A Markdown table cell: one line, pipes escaped."""
    return " ".join(str(value).split()).replace("|", "\\|")


def _size_category(n: int) -> str:
    return "n<1K" if n < 1000 else "1K<n<10K" if n < 10_000 else "10K<n<100K"


def card_header(facts: BuildFacts, items: Sequence[ExportItem]) -> dict[str, Any]:
    """The YAML metadata block of a Hugging Face dataset card. The licence is `other` with the
    licences named: items keep the licence of their source, which often differ within a benchmark."""
    licences = sorted({item.licence for item in items})
    return {
        "pretty_name": f"SciCustom benchmark: {facts.requirement_name}",
        "license": "other",
        "license_name": " + ".join(licences),
        "language": ["en"],
        "task_categories": ["multiple-choice", "question-answering"],
        "task_ids": ["multiple-choice-qa"],
        "size_categories": [_size_category(len(items))],
        "tags": ["scicustom", "science", "benchmark"],
    }


def _voted_units_section(facts: BuildFacts, items: Sequence[ExportItem]) -> list[str]:
    if not facts.voted_units:
        return ["## Knowledge units", "",
                f"The `{facts.params.get('method', '')}` method does not vote on units.", ""]
    per_unit = Counter(unit for item in items for unit in item.units)
    lines = ["## Voted knowledge units", "",
             "The jury's consensus (mean rank over its judges; lower is better) and the questions carrying each unit.",
             "", "| # | unit | consensus rank | questions |", "|---:|---|---:|---:|"]
    for position, unit in enumerate(facts.voted_units, 1):
        rank = "" if unit.consensus_rank is None else f"{unit.consensus_rank:g}"
        lines.append(f"| {position} | {_cell(unit.name)} | {rank} | {per_unit.get(unit.name, 0)} |")
    return [*lines, ""]


def _licence_section(items: Sequence[ExportItem]) -> list[str]:
    lines = ["## Sources and licences", "",
             "Every question keeps the licence of the data set it came from (`source`, `licence` of each row). "
             "Check them before you redistribute or use the benchmark commercially.", "",
             "| source | licence | questions |", "|---|---|---:|"]
    lines += [f"| {_cell(s)} | {_cell(lic)} | {n} |" for s, lic, n in licence_counts(items)]
    return [*lines, ""]


def _provenance_section(facts: BuildFacts, n_items: int) -> list[str]:
    judges = {k: facts.judges[k] for k in ("mode", "voting", "relevance", "mcq_writer") if k in facts.judges}
    lines = ["## Provenance", "",
             f"- scicustom version: `{facts.scicustom_version}`",
             f"- questions: {n_items}; `benchmark.jsonl` sha256: `{facts.benchmark_sha256}`",
             f"- build parameters: `{json.dumps(facts.params, sort_keys=True)}`",
             f"- seed: `{facts.params.get('seed', '')}`",
             f"- corpus and models: `{json.dumps(facts.corpus, sort_keys=True, ensure_ascii=False)}`",
             f"- judges: `{json.dumps(judges, sort_keys=True, ensure_ascii=False)}`"]
    if facts.coverage:
        lines.append(f"- coverage: `{facts.coverage.get('status', '')}`"
                     + (f", thin units: {', '.join(facts.coverage['thin_units'])}"
                        if facts.coverage.get("thin_units") else ""))
    if "estimated_on_topic" in facts.validity:
        lines.append(f"- estimated on-topic share: {facts.validity['estimated_on_topic']} "
                     f"(95% interval {facts.validity.get('ci95', '')})")
    return [*lines, ""]


def about_markdown(facts: BuildFacts, items: Sequence[ExportItem]) -> str:
    """The sections shared by every export's README: requirement, units, licences, provenance."""
    lines = [f"## Requirement: {facts.requirement_name}", ""]
    if facts.domain:
        lines += [f"Domain: {facts.domain}", ""]
    if facts.description:
        lines += [facts.description.strip(), ""]
    lines += _voted_units_section(facts, items) + _licence_section(items) + _provenance_section(facts, len(items))
    return "\n".join(lines)
