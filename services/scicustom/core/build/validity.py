"""Per-build validity: the jury's estimated on-topic share of a benchmark, with a 95% interval.

The estimate comes from the judges' precision measured on the labelled pairs of requirements nothing
was tuned on (resources/relevance_gold/calibration.json, written by benchmarks/bench_relevance.py):
for each level of agreement (how many offline judges accepted an item) the measured precision has a
Beta(tp + 1, fp + 1) posterior; the benchmark's on-topic share is the item-weighted mean of the
posterior means.

The interval is for a requirement of its own: precision differs far more between requirements
(measured: 0.29 for DNA replication to 1.0 for plate tectonics) than the pooled counts' sampling
error says. A new requirement's precision is taken as Beta-distributed around the estimate, with the
concentration fitted to the spread between the calibration's requirements (Beta-binomial maximum
likelihood) and widened by the estimate's own posterior variance; the benchmark's on-topic count is
then Beta-binomial over its items, and the interval holds its 2.5% and 97.5% quantiles as shares.
Without a measured spread (an older calibration file), the interval is +-1.96 item-weighted
posterior standard deviations.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
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


def _beta_binomial_logpmf(k: int, n: int, a: float, b: float) -> float:
    return (math.lgamma(n + 1) - math.lgamma(k + 1) - math.lgamma(n - k + 1)
            + math.lgamma(k + a) + math.lgamma(n - k + b) - math.lgamma(n + a + b)
            - math.lgamma(a) - math.lgamma(b) + math.lgamma(a + b))


def between_requirement_concentration(counts: Iterable[tuple[int, int]]) -> float:
    """The Beta concentration (a + b) that best explains per-requirement (tp, fp) counts around their
    pooled precision (maximum likelihood on a log grid from 0.5 to 1000): small when requirements
    differ, large when they agree up to binomial noise."""
    pairs = [(tp, fp) for tp, fp in counts if tp + fp]
    if not pairs:
        raise ValueError("no requirement with an accepted pair")
    tp_all, fp_all = sum(tp for tp, _ in pairs), sum(fp for _, fp in pairs)
    mean = (tp_all + 1) / (tp_all + fp_all + 2)
    grid = [0.5 * 1.05 ** i for i in range(157)]  # 0.5 .. ~1000
    return max(grid, key=lambda kappa: sum(_beta_binomial_logpmf(tp, tp + fp, mean * kappa, (1 - mean) * kappa)
                                           for tp, fp in pairs))


def _share_interval(n: int, mean: float, concentration: float) -> tuple[float, float]:
    """2.5% and 97.5% quantiles of a Beta-binomial(n, mean * c, (1 - mean) * c) count, as shares."""
    a, b = max(mean * concentration, 1e-6), max((1 - mean) * concentration, 1e-6)
    cumulative, low, high = 0.0, None, n
    for k in range(n + 1):
        cumulative += math.exp(_beta_binomial_logpmf(k, n, a, b))
        if low is None and cumulative >= 0.025:
            low = k
        if cumulative >= 0.975:
            high = k
            break
    return (low or 0) / n, high / n


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
    sd = sd_sum / n  # the items share one calibration, so their errors add up (not in quadrature)
    spread = calibration.get("between_requirements", {}).get("concentration")
    if spread:
        variance = estimate * (1 - estimate) / (float(spread) + 1) + sd * sd
        low, high = _share_interval(n, estimate, max(estimate * (1 - estimate) / variance - 1, 1e-3))
    else:
        low, high = max(0.0, estimate - Z95 * sd), min(1.0, estimate + Z95 * sd)
    return {
        "n_items": n,
        "estimated_on_topic": round(estimate, 4),
        "ci95": [round(low, 4), round(high, 4)],
        "items_by_offline_agreement": dict(sorted(levels.items())),
        "judge_acceptance": shares,
        "calibration": calibration.get("source", ""),
    }
