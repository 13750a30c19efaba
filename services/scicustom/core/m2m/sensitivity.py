"""cbs weight sensitivity (the paper's Table 8): cbs under alternative weight schemes and the Kendall tau
of each scheme's ranking against the default ranking.

As the reference's robustness analysis: cbs_w = round(Σ w·aggregate / Σ w, 4) with an absent aggregate
counted as 0.0. With systems, each system's mean cbs ranks the systems (ties broken by name) and tau
compares rank positions, as the reference does; without systems the rows themselves are ranked and tau
is scipy's tau-b between the rows' scores under the two schemes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

from scicustom.core.m2m.cbs import METRICS
from scicustom.core.m2m.scoring import ScoredRow

SCHEMES: Mapping[str, tuple[float, ...]] = {
    "default": (0.20, 0.20, 0.18, 0.15, 0.15, 0.12),
    "uniform": (1 / 6,) * 6,
    "rcf_heavy": (0.40, 0.15, 0.15, 0.10, 0.10, 0.10),
    "msi_heavy": (0.15, 0.15, 0.40, 0.10, 0.10, 0.10),
    "sns_heavy": (0.10, 0.15, 0.15, 0.40, 0.10, 0.10),
    "ip_heavy": (0.15, 0.15, 0.15, 0.10, 0.35, 0.10),
}


def weighted_cbs(aggregates: Mapping[str, float | None], weights: Sequence[float], decimals: int = 4) -> float:
    values = [aggregates.get(m) or 0.0 for m in METRICS]
    return round(sum(w * v for w, v in zip(weights, values, strict=True)) / sum(weights), decimals)


def sensitivity_report(rows: Sequence[ScoredRow], systems: Sequence[str] | None = None,
                       schemes: Mapping[str, tuple[float, ...]] = SCHEMES) -> dict[str, object]:
    scores = {name: [weighted_cbs(r.aggregates, w) for r in rows] for name, w in schemes.items()}
    report: dict[str, object] = {"schemes": {name: dict(zip(METRICS, w, strict=True)) for name, w in schemes.items()}}
    taus: dict[str, dict[str, float | None]] = {}
    if systems is not None:
        members: dict[str, list[int]] = {}
        for i, system in enumerate(systems):
            members.setdefault(system, []).append(i)
        table = {system: {name: round(math.fsum(values[i] for i in idx) / len(idx), 4)
                          for name, values in scores.items()} for system, idx in sorted(members.items())}
        rankings = {name: rank_by(table, name) for name in schemes}
        default = rankings["default"]
        for name, ranked in rankings.items():
            if name != "default":
                taus[name] = _tau([default.index(s) for s in default], [ranked.index(s) for s in default])
        report.update({"level": "system", "table": table, "rankings": rankings})
    else:
        report.update({"level": "row",
                       "table": {name: round(math.fsum(v) / len(v), 4) if v else None for name, v in scores.items()}})
        for name, values in scores.items():
            if name != "default":
                taus[name] = _tau(scores["default"], values)
    report["kendall_tau_vs_default"] = taus
    return report


def rank_by(table: Mapping[str, Mapping[str, float]], column: str) -> list[str]:
    """Keys of `table` by descending `column`, ties by name."""
    return sorted(table, key=lambda key: (-table[key][column], key))


def _tau(a: Sequence[float], b: Sequence[float]) -> dict[str, float | None]:
    if len(a) < 2:
        return {"tau": None, "p": None}
    from scipy.stats import kendalltau  # imported here: scipy.stats is slow to import

    result = kendalltau(a, b)
    tau, p = float(result.statistic), float(result.pvalue)
    return {"tau": None if math.isnan(tau) else round(tau, 4), "p": None if math.isnan(p) else round(p, 4)}
