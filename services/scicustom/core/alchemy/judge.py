"""The AlchemyBench LLM-as-a-Judge (paper Figure 14, Table 2): seven criteria scored 1-5 in 0.5 steps,
step-by-step reasoning first and a JSON block last. The overall score is the mean of the seven
criteria (section 3.2, Score = sum C_i / N_C); the judge's own "overall_score" is kept beside it.

Replies are read robustly (a ```json block, else the last JSON object, else "key: value" pairs; trailing
commas and single quotes tolerated). A reply that still lacks a criterion or gives one outside 1-5
is malformed and the judge is asked once more with a format reminder.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from statistics import fmean
from typing import Any

from scicustom.core.alchemy.prediction import PredictionTarget
from scicustom.core.alchemy.prompts import JUDGE_FORMAT_REMINDER, JUDGE_SYSTEM_PROMPT, JUDGE_USER_TEMPLATE
from scicustom.ports import LLM

CRITERIA = (
    "materials_appropriateness", "equipment_appropriateness", "procedure_completeness",
    "procedure_similarity", "procedure_feasibility", "characterization_appropriateness",
    "characterization_similarity",
)
JUDGE_PARAMS: Mapping[str, Any] = {"temperature": 0, "max_tokens": 4096}  # Appendix C.1


@dataclass(frozen=True)
class JudgeScores:
    criteria: Mapping[str, float]  # criterion -> score on the 0.5 grid
    judge_overall: float | None  # the judge's own overall_score, when it gave one
    off_grid: tuple[str, ...] = ()  # criteria the judge scored off the 0.5 grid (rounded to it)

    @property
    def overall(self) -> float:
        return fmean(self.criteria[c] for c in CRITERIA)


@dataclass(frozen=True)
class ParseResult:
    scores: JudgeScores | None
    problem: str = ""


@dataclass(frozen=True)
class Judgement:
    target_id: str
    scores: JudgeScores | None
    attempts: int
    problem: str = ""
    replies: tuple[str, ...] = field(default=(), repr=False)


def _candidates(text: str) -> list[str]:
    blocks = re.findall(r"```(?:json|JSON)?\s*(.*?)```", text, re.DOTALL)
    objects = []
    depth, start = 0, -1
    for i, ch in enumerate(text):
        if ch == "{":
            if depth == 0:
                start = i
            depth += 1
        elif ch == "}" and depth > 0:
            depth -= 1
            if depth == 0:
                objects.append(text[start:i + 1])
    return [*reversed(blocks), *reversed(objects)]


def _loads(candidate: str) -> Mapping[str, Any] | None:
    cleaned = re.sub(r",\s*([}\]])", r"\1", candidate.strip())
    for attempt in (cleaned, cleaned.replace("'", '"')):
        try:
            data = json.loads(attempt)
        except json.JSONDecodeError:
            continue
        if isinstance(data, Mapping):
            return data
    return None


def _pairs(text: str) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key in (*CRITERIA, "overall"):
        matches = re.findall(rf"{key}(?:_score)?\W{{0,6}}?[\"']?\s*[:=]\s*[\"']?(-?\d+(?:\.\d+)?)", text,
                             re.IGNORECASE)
        if matches:
            found[f"{key}_score"] = matches[-1]
    return found


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        return float(value)
    if isinstance(value, str):
        m = re.match(r"\s*(-?\d+(?:\.\d+)?)", value)  # "4.5", "4.5/5"
        return float(m.group(1)) if m else None
    return None


def parse_judge_reply(text: str) -> ParseResult:
    data: Mapping[str, Any] | None = None
    for candidate in _candidates(text):
        parsed = _loads(candidate)
        if parsed is not None and any(f"{c}_score" in parsed or c in parsed for c in CRITERIA):
            data = parsed
            break
    if data is None:
        data = _pairs(text)
    criteria: dict[str, float] = {}
    off_grid = []
    for c in CRITERIA:
        value = _number(data.get(f"{c}_score", data.get(c)))
        if value is None:
            return ParseResult(None, f"missing {c}_score")
        if not 1.0 <= value <= 5.0:
            return ParseResult(None, f"{c}_score {value:g} is outside 1-5")
        snapped = round(value * 2) / 2
        if snapped != value:
            off_grid.append(c)
        criteria[c] = snapped
    overall = _number(data.get("overall_score", data.get("overall")))
    return ParseResult(JudgeScores(criteria=criteria, judge_overall=overall, off_grid=tuple(off_grid)))


def judge_messages(target_description: str, prediction: str, ground_truth: str) -> list[dict[str, str]]:
    return [
        {"role": "system", "content": JUDGE_SYSTEM_PROMPT},
        {"role": "user", "content": JUDGE_USER_TEMPLATE.format(
            target=target_description, prediction=prediction, ground_truth=ground_truth)},
    ]


@dataclass(frozen=True)
class JudgeInput:
    target: PredictionTarget
    prediction: str


class RecipeJudge:
    def __init__(self, llm: LLM, model: str) -> None:
        self._llm = llm
        self.model = model

    def judge(self, item: JudgeInput) -> Judgement:
        messages = judge_messages(item.target.contribution, item.prediction, item.target.recipe)
        first = self._llm.complete(self.model, messages, **JUDGE_PARAMS).text
        parsed = parse_judge_reply(first)
        if parsed.scores is not None:
            return Judgement(item.target.id, parsed.scores, 1, replies=(first,))
        retry = [*messages, {"role": "assistant", "content": first},
                 {"role": "user", "content": JUDGE_FORMAT_REMINDER}]
        second = self._llm.complete(self.model, retry, **JUDGE_PARAMS).text
        reparsed = parse_judge_reply(second)
        return Judgement(item.target.id, reparsed.scores, 2,
                         problem="" if reparsed.scores is not None else reparsed.problem,
                         replies=(first, second))

    def judge_all(self, items: Sequence[JudgeInput], workers: int = 8) -> list[Judgement]:
        """A judgement for every input, in order; `workers` calls run at a time."""
        if workers < 1:
            raise ValueError("workers must be >= 1")
        with ThreadPoolExecutor(max_workers=workers) as pool:
            return list(pool.map(self.judge, items))
