"""Per-build validity: the jury's estimated on-topic share of a benchmark, with a 95% interval.

The estimate comes from the judges' precision measured on the labelled development set
(resources/relevance_gold/calibration.json, written by benchmarks/bench_relevance.py): for each
level of agreement (how many offline judges accepted an item) the measured precision has a
Beta(tp + 1, fp + 1) posterior; the benchmark's on-topic share is the item-weighted mean of the
posterior means; its interval is +-1.96 times the item-weighted mean posterior standard deviation
(the items share one calibration, so their errors are not independent), clipped to [0, 1].
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from scicustom.core.corpus_item import CorpusItem
from scicustom.core.requirement import Requirement
from scicustom.ports import RelevanceJudge

Z95 = 1.959964


def judge_with_reason(judge: RelevanceJudge, requirement: Requirement, item: CorpusItem) -> tuple[bool, str]:
    """A judge's verdict and why; judges without reasons (LLM judges) give their yes/no."""
    explain = getattr(judge, "judge", None)
    if callable(explain):
        verdict = explain(requirement, item)
        return bool(verdict.relevant), str(verdict.reason)
    ok = bool(judge.is_relevant(requirement, item))
    return ok, f"{judge.kind} judge answered {'yes' if ok else 'no'}"


def _beta(tp: int, fp: int) -> tuple[float, float]:
    a, b = tp + 1, fp + 1
    mean = a / (a + b)
    var = a * b / ((a + b) ** 2 * (a + b + 1))
    return mean, var


def estimate_validity(accepted_votes: Sequence[Mapping[str, bool]], calibration: Mapping[str, Any]) -> dict[str, Any]:
    """`accepted_votes`: each benchmark item's votes by judge name."""
    n = len(accepted_votes)
    judges = sorted({j for votes in accepted_votes for j in votes})
    shares = {j: round(sum(bool(v.get(j)) for v in accepted_votes) / n, 4) if n else None for j in judges}
    by_level: Mapping[str, Any] = calibration.get("jury_by_agreement", {})
    offline = set(calibration.get("judges", []))
    if not n:
        return {"n_items": 0, "estimated_on_topic": None, "ci95": None, "judge_acceptance": shares,
                "calibration": calibration.get("source", "")}
    if not by_level:
        return {"n_items": n, "estimated_on_topic": None, "ci95": None, "judge_acceptance": shares,
                "note": "no calibration of the jury is packaged"}
    mean_sum, sd_sum = 0.0, 0.0
    levels: dict[str, int] = {}
    for votes in accepted_votes:
        level = str(sum(bool(ok) for j, ok in votes.items() if j in offline))
        counts = by_level.get(level) or calibration["jury"]
        mean, var = _beta(int(counts["tp"]), int(counts["fp"]))
        mean_sum += mean
        sd_sum += math.sqrt(var)
        levels[level] = levels.get(level, 0) + 1
    estimate = mean_sum / n
    half = Z95 * sd_sum / n  # the items share one calibration, so their errors add up (not in quadrature)
    return {
        "n_items": n,
        "estimated_on_topic": round(estimate, 4),
        "ci95": [round(max(0.0, estimate - half), 4), round(min(1.0, estimate + half), 4)],
        "items_by_offline_agreement": dict(sorted(levels.items())),
        "judge_acceptance": shares,
        "calibration": calibration.get("source", ""),
    }
