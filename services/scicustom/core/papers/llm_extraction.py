"""Instances an LLM writes from a paper, held to the paper by citations.

(a) Grounded QA: single-chunk and multi-chunk (two adjacent chunks) question generation; each item
    must quote its evidence verbatim. The citation-grounding filter keeps an item only when every
    citation matches the paper (fuzzy, RapidFuzz partial ratio >= 90) and the answer is supported by
    the cited evidence; rejected items are kept for audit.
(c) Matter-to-Mechanism problem -> hypothesis instances with the benchmark's fields (seed 001), each
    with verbatim evidence quotes under the same filter.
(b) AlchemyBench recipes reuse core/alchemy/extraction.py (the paper's own prompts, seed 003).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Any

from scicustom.core.corpus_item import LABELS
from scicustom.core.papers.document import ParsedPaper
from scicustom.core.papers.grounding import answer_supported, citation_grounded

QA_GENERATOR = "llm-qa-v1"
HYPOTHESIS_EXTRACTOR = "m2m-hypothesis-v1"
CHUNK_CHARS = 6000
MAX_CHUNKS = 12
PARAMS: dict[str, Any] = {"temperature": 0, "max_tokens": 2048}

QA_PROMPT = """You write exam questions from a scientific paper. Use only facts stated in the passage.
For each question give verbatim citations: exact sentences copied from the passage that support the answer.
Write up to {n} multiple-choice questions, each with 4 options and exactly one correct option.
Return only JSON: {{"items": [{{"question": "...", "options": ["...", "...", "...", "..."], "answer_index": 0,
"citations": ["exact sentence from the passage", "..."]}}]}}

Paper title: {title}

Passage:
{passage}"""

M2M_FIELDS = ("problem_statement", "battery_system", "component", "failure_mode_or_limitation",
              "intervention_or_solution", "mechanism_or_rationale", "target_property", "claimed_outcome",
              "evidence_strength", "novelty_axis", "problem_type_broad", "problem_type_fine", "hypothesis",
              "reasoning_process")
M2M_PROMPT = """Convert this materials-science paper into one structured problem-solution instance (Matter to
Mechanism): the technical problem the paper addresses and its candidate solution hypothesis with the reasoning.
Use only what the paper states. If the paper is not about a materials or battery problem and its solution,
return {{"applicable": false}}.
Otherwise return only JSON with these string fields: {fields}.
evidence_strength is one of strong, moderate, weak, unknown. reasoning_process is a list of steps, each written as
"[Begin Step N] ... [End Step N]". Add "citations": exact sentences copied from the paper that support the
problem statement, the intervention and the claimed outcome.

Paper title: {title}

Paper:
{paper}"""


@dataclass(frozen=True)
class Chunk:
    start: int
    end: int
    section: str


def chunks(paper: ParsedPaper, size: int = CHUNK_CHARS) -> list[Chunk]:
    """Runs of whole sentences of at most `size` characters, at most MAX_CHUNKS, in paper order."""
    out: list[Chunk] = []
    start = end = -1
    section = ""
    for sentence in paper.sentences:
        if start < 0:
            start, end = sentence.start, sentence.end
            section = paper.sections[sentence.section].title
        elif sentence.end - start > size:
            out.append(Chunk(start, end, section))
            start, end = sentence.start, sentence.end
            section = paper.sections[sentence.section].title
        else:
            end = sentence.end
        if len(out) >= MAX_CHUNKS:
            return out
    if start >= 0:
        out.append(Chunk(start, end, section))
    return out[:MAX_CHUNKS]


def qa_requests(paper: ParsedPaper, per_chunk: int = 3) -> list[tuple[str, Chunk, Chunk | None]]:
    """Prompts of the single-chunk requests, then of the multi-chunk ones (adjacent pairs)."""
    parts = chunks(paper)
    title = paper.title or "(untitled)"
    out: list[tuple[str, Chunk, Chunk | None]] = []
    for chunk in parts:
        passage = paper.text[chunk.start:chunk.end]
        out.append((QA_PROMPT.format(n=per_chunk, title=title, passage=passage), chunk, None))
    for first, second in pairwise(parts):
        passage = paper.text[first.start:first.end] + "\n\n[...]\n\n" + paper.text[second.start:second.end]
        prompt = QA_PROMPT.format(n=1, title=title, passage=passage)
        out.append((prompt + "\nEach question must need facts from both parts of the passage.", first, second))
    return out


def reply_json(reply: str) -> Any:
    """The JSON object of a reply (code fences and text around it tolerated); None when there is none."""
    match = re.search(r"\{.*\}", reply, re.DOTALL)
    if match is None:
        return None
    try:
        return json.loads(match.group(0))
    except json.JSONDecodeError:
        return None


def _strings(value: Any) -> list[str]:
    return [str(v).strip() for v in value if str(v).strip()] if isinstance(value, list) else []


def grounded_qa(paper: ParsedPaper, reply: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(kept, rejected) items of one reply, each with the reason it was rejected."""
    parsed = reply_json(reply)
    if not isinstance(parsed, dict) or not isinstance(parsed.get("items"), list):
        return [], [{"reason": "reply is not the asked JSON", "reply": reply[:2000]}]
    kept: list[dict[str, Any]] = []
    rejected: list[dict[str, Any]] = []
    for raw in parsed["items"]:
        if not isinstance(raw, dict):
            rejected.append({"reason": "item is not an object", "item": str(raw)[:500]})
            continue
        question = str(raw.get("question", "")).strip()
        options = _strings(raw.get("options"))
        citations = _strings(raw.get("citations"))
        index = raw.get("answer_index")
        reason = ""
        if not question or not 2 <= len(options) <= len(LABELS) or not isinstance(index, int) \
                or not 0 <= index < len(options):
            reason = "malformed item"
        elif len({o.casefold() for o in options}) != len(options):
            reason = "duplicate options"
        elif not citations:
            reason = "no citation"
        elif not all(citation_grounded(c, paper.text) for c in citations):
            reason = "citation not found in the paper"
        elif not answer_supported(options[index], " ".join(citations)):
            reason = "answer not supported by the cited evidence"
        record = {"question": question, "options": options, "answer_index": index, "citations": citations}
        if reason:
            rejected.append({"reason": reason, "item": record})
        else:
            kept.append(record)
    return kept, rejected


def evidence_span(paper: ParsedPaper, citation: str) -> tuple[int, int]:
    """Where a citation lies in the paper (exact match), else the whole text's extent."""
    at = paper.text.find(citation)
    return (at, at + len(citation)) if at >= 0 else (0, len(paper.text))


def m2m_messages(paper: ParsedPaper, limit: int = 50_000) -> list[dict[str, str]]:
    prompt = M2M_PROMPT.format(fields=", ".join(M2M_FIELDS), title=paper.title or "(untitled)",
                               paper=paper.text[:limit])
    return [{"role": "user", "content": prompt}]


def grounded_hypothesis(paper: ParsedPaper, reply: str) -> tuple[dict[str, Any] | None, dict[str, Any] | None,
                                                                 bool]:
    """(instance, rejection, applicable): the reply's instance when its citations hold."""
    parsed = reply_json(reply)
    if not isinstance(parsed, dict):
        return None, {"reason": "reply is not the asked JSON", "reply": reply[:2000]}, True
    if parsed.get("applicable") is False:
        return None, None, False
    record: dict[str, Any] = {}
    for name in M2M_FIELDS:
        value = parsed.get(name, "")
        record[name] = "\n".join(str(v) for v in value) if isinstance(value, list) else str(value).strip()
    citations = _strings(parsed.get("citations"))
    record["citations"] = citations
    missing = [f for f in ("problem_statement", "hypothesis") if not record[f]]
    if missing:
        return None, {"reason": f"missing {', '.join(missing)}", "instance": record}, True
    if not citations or not all(citation_grounded(c, paper.text) for c in citations):
        return None, {"reason": "citation not found in the paper", "instance": record}, True
    return record, None, True


def join_passages(paper: ParsedPaper, spans: Sequence[Chunk]) -> str:
    return "\n\n".join(paper.text[c.start:c.end] for c in spans)
