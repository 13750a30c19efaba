"""Pairwise LLM-judge validation (the paper's section 4.4 and Appendix C), through the LLM port.

For each pair of systems, up to `problems` problems both systems answered (sampled with a fixed seed)
are judged by every judge model twice, hypothesis order A/B then B/A. A comparison's winner is the
system both orders agree on; when they disagree it is a tie and counts as an order flip. Per pair and
judge: wins, ties, flip rate, the judge's winner (more wins) and whether it agrees with the cbs winner
(higher mean cbs over the system's rows). Summary: agreement of each judge with cbs, agreement between
judges (share of problems with the same final winner), mean order-flip rate.

Parsing is stricter than the reference's (which takes any "A" in the first 50 characters of a reply it
cannot parse): the reply's JSON object gives "overall"; failing that an `"overall": "A"` fragment; else
the verdict is a tie and counted as a parse error.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from scicustom.core.m2m.records import M2MRecords
from scicustom.core.m2m.scoring import ScoredRow
from scicustom.ports import LLM

SYSTEM_PROMPT = "You are an expert battery materials scientist evaluating two AI-generated research hypotheses."
USER_TEMPLATE = """PROBLEM:
{problem}

BATTERY_SYSTEM: {battery_system}
FAILURE_MODE: {failure_mode}

HYPOTHESIS A:
{hypothesis_a}

HYPOTHESIS B:
{hypothesis_b}

Evaluate which hypothesis is better on three criteria:
1. Problem_Addressed: which better addresses the stated failure mode?
2. Mechanistic_Depth: which is more mechanistically grounded?
3. Scientific_Utility: which would be more useful to a researcher?

Respond only with JSON:
{{"problem_addressed": "A|B", "mechanistic_depth": "A|B", "scientific_utility": "A|B", "overall": "A|B", \
"confidence": "high|medium|low"}}"""
# Field lengths the reference release sends to its judges.
LIMITS = {"problem": 500, "battery_system": 80, "failure_mode": 150, "hypothesis": 400}
TIE = "tie"
_FENCE = re.compile(r"```(?:json)?", re.IGNORECASE)
_OBJECT = re.compile(r"\{.*\}", re.DOTALL)
_OVERALL = re.compile(r'"overall"\s*:\s*"?\s*([AB])\b')


@dataclass(frozen=True)
class Answer:
    """One system's answer to one problem, with the problem fields the judge sees."""

    problem: str
    battery_system: str
    failure_mode: str
    hypothesis: str


@dataclass(frozen=True)
class Verdict:
    winner: str  # "A", "B" or "tie"
    parse_error: bool
    confidence: str = ""


def parse_verdict(text: str) -> Verdict:
    cleaned = _FENCE.sub("", text).strip()
    found = _OBJECT.search(cleaned)
    if found:
        try:
            data = json.loads(found.group(0))
        except json.JSONDecodeError:
            data = None
        if isinstance(data, dict):
            overall = str(data.get("overall", "")).strip()
            confidence = str(data.get("confidence", ""))
            if overall.upper() in ("A", "B"):
                return Verdict(overall.upper(), False, confidence)
            if overall.lower() == TIE:
                return Verdict(TIE, False, confidence)
    fragment = _OVERALL.search(cleaned)
    if fragment:
        return Verdict(fragment.group(1), True)
    return Verdict(TIE, True)


def answers_by_system(records: M2MRecords, rows: Sequence[ScoredRow], systems: Sequence[str]
                      ) -> tuple[dict[str, dict[str, Answer]], dict[str, float]]:
    """Each system's answers by paper id, and its mean cbs (the judge report's programmatic column)."""
    answers: dict[str, dict[str, Answer]] = {}
    cbs: dict[str, list[float]] = {}
    fields = {name: records.text(name) for name in ("problem_statement", "battery_system",
                                                    "failure_mode_or_limitation", "hypothesis")}
    for i, (row, system) in enumerate(zip(rows, systems, strict=True)):
        answers.setdefault(system, {})[row.paper_id] = Answer(
            fields["problem_statement"][i], fields["battery_system"][i], fields["failure_mode_or_limitation"][i],
            fields["hypothesis"][i])
        cbs.setdefault(system, []).append(row.cbs)
    return answers, {s: sum(v) / len(v) for s, v in cbs.items()}


def judge_prompt(answer_a: Answer, answer_b: Answer) -> list[dict[str, str]]:
    user = USER_TEMPLATE.format(
        problem=answer_a.problem[:LIMITS["problem"]],
        battery_system=answer_a.battery_system[:LIMITS["battery_system"]],
        failure_mode=answer_a.failure_mode[:LIMITS["failure_mode"]],
        hypothesis_a=answer_a.hypothesis[:LIMITS["hypothesis"]],
        hypothesis_b=answer_b.hypothesis[:LIMITS["hypothesis"]],
    )
    return [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": user}]


def pairwise_report(llm: LLM, judges: Sequence[str], answers: Mapping[str, Mapping[str, Answer]],
                    mean_cbs: Mapping[str, float], *, pairs: Sequence[tuple[str, str]] | None = None,
                    problems: int = 50, seed: int = 42, params: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """`answers[system][problem_id]`; `pairs` defaults to every pair of systems (sorted names)."""
    call_params = dict(params or {"temperature": 0.0})
    chosen_pairs = list(pairs) if pairs is not None else list(combinations(sorted(answers), 2))
    judgments: list[dict[str, Any]] = []
    per_pair: dict[str, dict[str, Any]] = {}
    for system_a, system_b in chosen_pairs:
        common = sorted(set(answers.get(system_a, {})) & set(answers.get(system_b, {})))
        if len(common) > problems:
            common = sorted(random.Random(seed).sample(common, problems))
        for judge in judges:
            rows = []
            for problem_id in common:
                a, b = answers[system_a][problem_id], answers[system_b][problem_id]
                first = parse_verdict(llm.complete(judge, judge_prompt(a, b), **call_params).text)
                second = parse_verdict(llm.complete(judge, judge_prompt(b, a), **call_params).text)
                winner_1 = {"A": system_a, "B": system_b}.get(first.winner, TIE)
                winner_2 = {"A": system_b, "B": system_a}.get(second.winner, TIE)
                rows.append({"problem_id": problem_id, "system_a": system_a, "system_b": system_b,
                             "judge": judge, "winner_order1": winner_1, "winner_order2": winner_2,
                             "final_winner": winner_1 if winner_1 == winner_2 else TIE,
                             "order_flip": winner_1 != winner_2,
                             "parse_errors": int(first.parse_error) + int(second.parse_error)})
            judgments.extend(rows)
            per_pair[f"{system_a} vs {system_b} | {judge}"] = _pair_summary(rows, system_a, system_b, judge, mean_cbs)
    return {"pairs": per_pair, "summary": _summary(per_pair, judgments, judges), "judgments": judgments}


def _pair_summary(rows: list[dict[str, Any]], system_a: str, system_b: str, judge: str,
                  mean_cbs: Mapping[str, float]) -> dict[str, Any]:
    wins_a = sum(1 for r in rows if r["final_winner"] == system_a)
    wins_b = sum(1 for r in rows if r["final_winner"] == system_b)
    judge_winner = system_a if wins_a > wins_b else system_b if wins_b > wins_a else TIE
    cbs_winner = system_a if mean_cbs.get(system_a, 0.0) > mean_cbs.get(system_b, 0.0) else system_b
    return {"system_a": system_a, "system_b": system_b, "judge": judge, "n": len(rows),
            "wins_a": wins_a, "wins_b": wins_b, "ties": len(rows) - wins_a - wins_b,
            "flip_rate": round(sum(r["order_flip"] for r in rows) / len(rows), 4) if rows else None,
            "parse_errors": sum(r["parse_errors"] for r in rows),
            "judge_winner": judge_winner, "cbs_winner": cbs_winner, "agrees_with_cbs": judge_winner == cbs_winner}


def _summary(per_pair: Mapping[str, Mapping[str, Any]], judgments: list[dict[str, Any]],
             judges: Sequence[str]) -> dict[str, Any]:
    agreement = {}
    for judge in judges:
        verdicts = [p["agrees_with_cbs"] for p in per_pair.values() if p["judge"] == judge and p["n"]]
        agreement[judge] = round(sum(verdicts) / len(verdicts), 4) if verdicts else None
    between: dict[str, float | None] = {}
    for judge_x, judge_y in combinations(judges, 2):
        shares = []
        pairs = {(r["system_a"], r["system_b"]) for r in judgments}
        for pair in sorted(pairs):
            x = {r["problem_id"]: r["final_winner"] for r in judgments if r["judge"] == judge_x
                 and (r["system_a"], r["system_b"]) == pair}
            y = {r["problem_id"]: r["final_winner"] for r in judgments if r["judge"] == judge_y
                 and (r["system_a"], r["system_b"]) == pair}
            both = sorted(set(x) & set(y))
            if both:
                shares.append(sum(x[p] == y[p] for p in both) / len(both))
        between[f"{judge_x} vs {judge_y}"] = round(sum(shares) / len(shares), 4) if shares else None
    flips = [p["flip_rate"] for p in per_pair.values() if p["flip_rate"] is not None]
    return {"cbs_judge_agreement": agreement, "judge_judge_agreement": between,
            "mean_order_flip_rate": round(sum(flips) / len(flips), 4) if flips else None,
            "calls": 2 * len(judgments), "parse_errors": sum(r["parse_errors"] for r in judgments)}
