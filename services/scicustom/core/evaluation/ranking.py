"""Model rankings and their agreement (SciCustom section 3.1, Tables 1-2).

A ranking document is `{"metric": ..., "ranking": [{"rank", "model", "score"}, ...]}`, best
first. Agreement is computed over the models both rankings contain, from their scores, so ties
are handled by the statistics themselves (average ranks for Spearman, tau-b for Kendall).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from scipy import stats

from scicustom.core.errors import InvalidInput


def ranking_document(scores: Mapping[str, float], metric: str = "accuracy",
                     **extra: Any) -> dict[str, Any]:
    """Best first; ties share the better rank ("1, 2, 2, 4"); equal scores ordered by name."""
    ordered = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
    entries: list[dict[str, Any]] = []
    for position, (model, score) in enumerate(ordered, start=1):
        tied = entries and entries[-1]["score"] == score
        entries.append({"rank": entries[-1]["rank"] if tied else position, "model": model,
                        "score": score})
    return {"metric": metric, **extra, "ranking": entries}


def _finite_number(value: Any) -> bool:
    """A JSON number a float can hold: not a bool, NaN, infinity or an integer past float's range."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:  # math.isfinite(10**400) converts to float first
        return False


def read_ranking(document: Any, source: str) -> dict[str, float]:
    """Model -> score from a ranking document, a `results.json` of `evaluate`, or a plain
    `{"model": score}` object (for reference rankings written by hand)."""
    if isinstance(document, dict) and isinstance(document.get("ranking"), list):
        pairs = []
        for i, entry in enumerate(document["ranking"]):
            if not isinstance(entry, dict) or "model" not in entry or "score" not in entry:
                raise InvalidInput(source, f"ranking entry {i} needs 'model' and 'score'")
            pairs.append((entry["model"], entry["score"]))
    elif isinstance(document, dict) and isinstance(document.get("models"), dict):
        pairs = [(name, r.get("accuracy") if isinstance(r, dict) else None)
                 for name, r in document["models"].items()]
    elif isinstance(document, dict):
        pairs = list(document.items())
    else:
        raise InvalidInput(source, "expected a JSON object")
    scores: dict[str, float] = {}
    for model, score in pairs:
        if not isinstance(model, str) or not _finite_number(score):
            raise InvalidInput(source, f"model {model!r} needs a finite numeric score, got {score!r:.40}")
        if model in scores:
            raise InvalidInput(source, f"model {model!r} appears twice")
        scores[model] = float(score)
    return scores


@dataclass(frozen=True)
class RankingAgreement:
    models: tuple[str, ...]  # the common models, sorted
    spearman: float | None  # None where undefined (a ranking with all scores tied)
    spearman_p: float | None
    kendall_tau_b: float | None
    kendall_p: float | None
    top1_a: tuple[str, ...]  # best common model(s) under each ranking; several when tied
    top1_b: tuple[str, ...]
    only_in_a: tuple[str, ...]
    only_in_b: tuple[str, ...]

    @property
    def top1_agree(self) -> bool:
        """Both rankings pick the same best model; a tie for first agrees only with the same tie."""
        return self.top1_a == self.top1_b

    def to_record(self) -> dict[str, Any]:
        return {
            "n_common": len(self.models), "models": list(self.models),
            "spearman": {"rho": self.spearman, "p_value": self.spearman_p},
            "kendall_tau_b": {"tau": self.kendall_tau_b, "p_value": self.kendall_p},
            "top1": {"a": list(self.top1_a), "b": list(self.top1_b), "agree": self.top1_agree},
            "only_in_a": list(self.only_in_a), "only_in_b": list(self.only_in_b),
        }


def _finite(value: float) -> float | None:
    """Rounded to 12 places so 0.9999999999999999 reads 1.0; NaN (undefined) becomes None."""
    return round(float(value), 12) if math.isfinite(value) else None


def _top(scores: Mapping[str, float], models: tuple[str, ...]) -> tuple[str, ...]:
    best = max(scores[m] for m in models)
    return tuple(m for m in models if scores[m] == best)


def compare_rankings(a: Mapping[str, float], b: Mapping[str, float]) -> RankingAgreement:
    models = tuple(sorted(set(a) & set(b)))
    if len(models) < 2:
        raise InvalidInput("rankings", f"need at least 2 models in common, found {len(models)}"
                           + (f" ({models[0]})" if models else ""))
    xs = [a[m] for m in models]
    ys = [b[m] for m in models]
    constant = len(set(xs)) == 1 or len(set(ys)) == 1
    if constant:  # scipy warns and returns nan; the correlation is undefined
        rho = rho_p = tau = tau_p = None
    else:
        spearman = stats.spearmanr(xs, ys)
        kendall = stats.kendalltau(xs, ys, variant="b")
        rho, rho_p = _finite(spearman.statistic), _finite(spearman.pvalue)
        tau, tau_p = _finite(kendall.statistic), _finite(kendall.pvalue)
    return RankingAgreement(
        models=models, spearman=rho, spearman_p=rho_p, kendall_tau_b=tau, kendall_p=tau_p,
        top1_a=_top(a, models), top1_b=_top(b, models),
        only_in_a=tuple(sorted(set(a) - set(b))), only_in_b=tuple(sorted(set(b) - set(a))),
    )
