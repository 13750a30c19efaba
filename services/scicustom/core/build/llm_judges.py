"""Judges backed by any LLM (through the LLM port) with the paper's prompts."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from rapidfuzz import fuzz, process

from scicustom.core.build.prompts import (
    MCQ_SYSTEM,
    MCQ_USER,
    RELEVANCE_SYSTEM,
    RELEVANCE_USER,
    VOTING_SYSTEM,
    VOTING_USER,
)
from scicustom.core.corpus_item import CorpusItem
from scicustom.core.requirement import Requirement
from scicustom.core.units import KnowledgeUnit
from scicustom.ports import LLM

FUZZY_THRESHOLD = 85.0  # the paper matches tag names with rapidfuzz ratio >= 85
_LIST_MARKER = re.compile(r"^\s*(?:[-*•]|\d+[.)]|\(\d+\))\s*")


def parse_ranked_tags(text: str, candidates: Sequence[KnowledgeUnit],
                      threshold: float = FUZZY_THRESHOLD) -> list[str]:
    """Unit ids in the order the reply lists them; lines that match no candidate are dropped."""
    names = {u.name.casefold(): u.id for u in candidates}
    choices = list(names)
    ranked: list[str] = []
    pieces = [p for line in text.splitlines() for p in (line.split(",") if line.count(",") > 2 else [line])]
    for piece in pieces:
        label = _LIST_MARKER.sub("", piece).strip().strip("*`\"'").strip().casefold()
        if not label:
            continue
        match = process.extractOne(label, choices, scorer=fuzz.ratio, score_cutoff=threshold)
        if match is not None and names[match[0]] not in ranked:
            ranked.append(names[match[0]])
    return ranked


class LLMUnitRanker:
    kind = "llm"

    def __init__(self, llm: LLM, model: str, frequency: Mapping[str, int]) -> None:
        self.name = f"llm:{model}"
        self._llm = llm
        self._model = model
        self._frequency = frequency

    def rank_units(self, requirement: Requirement, candidates: Sequence[KnowledgeUnit]) -> list[str]:
        # The paper lists candidates by corpus frequency, lowest first.
        listed = sorted(candidates, key=lambda u: (self._frequency.get(u.id, 0), u.name))
        messages = [
            {"role": "system", "content": VOTING_SYSTEM.format(domain=requirement.domain)},
            {"role": "user", "content": VOTING_USER.format(
                domain=requirement.domain, description=requirement.description,
                tag_list=", ".join(u.name for u in listed))},
        ]
        reply = self._llm.complete(self._model, messages, temperature=0)
        return parse_ranked_tags(reply.text, candidates)


def parse_yes_no(text: str) -> bool | None:
    match = re.search(r"\b(yes|no)\b", text.strip().lower())
    return None if match is None else match.group(1) == "yes"


class LLMRelevanceJudge:
    kind = "llm"

    def __init__(self, llm: LLM, model: str) -> None:
        self.name = f"llm:{model}"
        self._llm = llm
        self._model = model

    def is_relevant(self, requirement: Requirement, item: CorpusItem) -> bool:
        messages = [
            {"role": "system", "content": RELEVANCE_SYSTEM.format(domain=requirement.domain)},
            {"role": "user", "content": RELEVANCE_USER.format(
                description=requirement.description, question=item.question, answer=item.answer)},
        ]
        verdict = parse_yes_no(self._llm.complete(self._model, messages, temperature=0).text)
        return bool(verdict)  # an unreadable verdict is not a vote for relevance


class LLMMCQWriter:
    """The paper's MCQ transformation prompt; returns the raw reply for `mcq.parse_llm_mcq`."""

    def __init__(self, llm: LLM, model: str) -> None:
        self.name = f"llm:{model}"
        self._llm = llm
        self._model = model

    def write(self, requirement: Requirement, item: CorpusItem) -> str:
        content = f"Question: {item.question}\nAnswer: {item.answer}"
        messages = [
            {"role": "system", "content": MCQ_SYSTEM.format(domain=requirement.domain)},
            {"role": "user", "content": MCQ_USER.format(input_content=content)},
        ]
        return self._llm.complete(self._model, messages, temperature=0).text
