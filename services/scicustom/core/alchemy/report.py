"""AlchemyBench judge reports: score statistics (paper Tables 5 and 10: mean, σ, min, max), the
BLEU / ROUGE-L baselines against the ground-truth recipe, and, when expert ratings are given,
inter-expert ICC(3,k) (Table 3), each metric's Pearson and Spearman correlation with the expert
consensus on the overall score (Table 4) and the judge's per-criterion agreement (Tables 8-9)."""

from __future__ import annotations

import dataclasses
import math
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from statistics import fmean, stdev
from typing import Any

import numpy as np

from scicustom.core.alchemy.agreement import icc3k, pearson, spearman
from scicustom.core.alchemy.judge import CRITERIA, Judgement
from scicustom.core.errors import InvalidInput
from scicustom.core.text_overlap import bleu, rouge_l

OVERALL = "overall"


@dataclass(frozen=True)
class ExpertRating:
    target_id: str
    rater: str
    scores: Mapping[str, float]  # criterion or "overall" -> score
    group: str = ""


def parse_expert_rating(raw: Mapping[str, Any], where: str) -> ExpertRating:
    target_id, rater = raw.get("id"), raw.get("rater")
    if target_id in (None, "") or rater in (None, ""):
        raise InvalidInput(where, "an expert rating needs 'id' and 'rater'")
    scores: dict[str, float] = {}
    for key in (*CRITERIA, OVERALL):
        value = raw.get(key, raw.get(f"{key}_score"))
        if value is None:
            continue
        try:
            scores[key] = float(value)
        except (TypeError, ValueError, OverflowError) as exc:  # OverflowError: an integer past float's range
            raise InvalidInput(f"{where}.{key}", "expected a number") from exc
        if not math.isfinite(scores[key]):
            raise InvalidInput(f"{where}.{key}", "expected a finite number")
    if OVERALL not in scores:
        if not all(c in scores for c in CRITERIA):
            raise InvalidInput(where, "give 'overall' or all seven criteria")
        scores[OVERALL] = fmean(scores[c] for c in CRITERIA)
    return ExpertRating(str(target_id), str(rater), scores, str(raw.get("group", "")))


def describe(values: Sequence[float]) -> dict[str, float | int | None]:
    if not values:
        return {"n": 0, "mean": None, "std": None, "min": None, "max": None}
    return {"n": len(values), "mean": fmean(values), "std": stdev(values) if len(values) > 1 else None,
            "min": min(values), "max": max(values)}


def overlap_baselines(pairs: Mapping[str, tuple[str, str]]) -> dict[str, dict[str, float]]:
    """BLEU and ROUGE-L F1 of each prediction against its ground truth: id -> metric -> score."""
    return {tid: {"bleu": bleu(pred, ref, variant="sacrebleu"), "rouge_l": rouge_l(pred, ref).fmeasure}
            for tid, (pred, ref) in pairs.items() if ref}


def judge_summary(judgements: Sequence[Judgement]) -> dict[str, Any]:
    scored = [j for j in judgements if j.scores is not None]
    return {
        "predictions": len(judgements),
        "scored": len(scored),
        "malformed": len(judgements) - len(scored),
        "retried": sum(1 for j in judgements if j.attempts > 1),
        "overall": describe([j.scores.overall for j in scored if j.scores]),
        "judge_overall": describe([j.scores.judge_overall for j in scored
                                   if j.scores and j.scores.judge_overall is not None]),
        "criteria": {c: describe([j.scores.criteria[c] for j in scored if j.scores]) for c in CRITERIA},
    }


def _correlations(metric: Mapping[str, float], consensus: Mapping[str, float]) -> dict[str, Any]:
    ids = sorted(set(metric) & set(consensus))
    x = [metric[i] for i in ids]
    y = [consensus[i] for i in ids]
    return {"pearson": dataclasses.asdict(pearson(x, y)), "spearman": dataclasses.asdict(spearman(x, y))}


def agreement_report(ratings: Sequence[ExpertRating], judgements: Sequence[Judgement],
                     baselines: Mapping[str, Mapping[str, float]]) -> dict[str, Any]:
    groups: dict[str, list[ExpertRating]] = {"all": list(ratings)}
    for r in ratings:
        if r.group:
            groups.setdefault(r.group, []).append(r)
    judged = {j.target_id: j.scores for j in judgements if j.scores is not None}
    out = {}
    for name, members in groups.items():
        by_target: dict[str, dict[str, dict[str, float]]] = defaultdict(dict)
        for r in members:
            by_target[r.target_id][r.rater] = dict(r.scores)
        raters = sorted({r.rater for r in members})
        consensus: dict[str, dict[str, float]] = defaultdict(dict)
        inter_expert = {}
        for key in (*CRITERIA, OVERALL):
            complete = [t for t in sorted(by_target) if all(key in by_target[t].get(rt, {}) for rt in raters)]
            matrix = np.array([[by_target[t][rt][key] for rt in raters] for t in complete])
            icc = icc3k(matrix) if len(complete) else None
            inter_expert[key] = dataclasses.asdict(icc) if icc else None
            for t in by_target:
                values = [s[key] for s in by_target[t].values() if key in s]
                if values:
                    consensus[key][t] = fmean(values)
        metrics = {
            "llm_judge": {t: s.overall for t, s in judged.items()},
            "bleu": {t: b["bleu"] for t, b in baselines.items()},
            "rouge_l": {t: b["rouge_l"] for t, b in baselines.items()},
        }
        out[name] = {
            "raters": raters,
            "rated_predictions": len(by_target),
            "inter_expert_icc3k": inter_expert,
            "overall_vs_experts": {m: _correlations(v, consensus[OVERALL]) for m, v in metrics.items()},
            "judge_criteria_vs_experts": {
                c: _correlations({t: s.criteria[c] for t, s in judged.items()}, consensus[c])
                for c in CRITERIA if consensus.get(c)
            },
        }
    return out


def judge_report(judge: str, groups: Sequence[str], judgements: Sequence[Judgement], ratings: Sequence[ExpertRating],
                 baselines: dict[str, dict[str, float]], usage: dict[str, Any]) -> dict[str, Any]:
    """REPORT.json of a judge run (`scicustom score alchemy judge`, ScorerService.JudgeRecipes)."""
    by_group: dict[str, list[Judgement]] = defaultdict(list)
    for group, j in zip(groups, judgements, strict=True):
        by_group[group].append(j)
    return {
        "suite": "alchemy",
        "judge": judge,
        "summary": judge_summary(judgements),
        "by_model": {g: judge_summary(js) for g, js in sorted(by_group.items())},
        "baselines": {"bleu": describe([b["bleu"] for b in baselines.values()]),
                      "rouge_l": describe([b["rouge_l"] for b in baselines.values()])},
        "agreement": agreement_report(ratings, judgements, baselines) if ratings else None,
        "predictions": [
            {"id": j.target_id, "group": g, "attempts": j.attempts, "problem": j.problem,
             "scores": dict(j.scores.criteria) if j.scores else None,
             "overall": j.scores.overall if j.scores else None,
             "judge_overall": j.scores.judge_overall if j.scores else None,
             "off_grid": list(j.scores.off_grid) if j.scores else [],
             **baselines.get(j.target_id, {})}
            for g, j in zip(groups, judgements, strict=True)
        ],
        "usage": usage,
    }
