"""SciIF reports: correctness, single- and multi-constraint compliance, per-constraint pass rates
(paper Table 1), compliance versus the number of enabled constraints k (Table 5), and the mean
verifier reward (Appendix C.4), per model under test.

Every rate is pass / total with undecided counted as not passed; `decided_rate` is pass over the
decided ones, and `undecided` says how many were left to judges that were not there.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Iterable, Sequence
from statistics import fmean
from typing import Any

from scicustom.core.sciif.audit import ItemAudit, Status
from scicustom.core.sciif.catalog import Catalog


def counts(statuses: Iterable[Status]) -> dict[str, Any]:
    tally = {"pass": 0, "fail": 0, "undecided": 0}
    for status in statuses:
        tally[status] += 1
    total = sum(tally.values())
    decided = tally["pass"] + tally["fail"]
    return {**tally, "total": total,
            "rate": tally["pass"] / total if total else None,
            "decided_rate": tally["pass"] / decided if decided else None}


def model_summary(audits: Sequence[ItemAudit], catalog: Catalog, *,
                  gate_on_correctness: bool) -> dict[str, Any]:
    def compliance(a: ItemAudit) -> Status:
        return a.compliance_gated if gate_on_correctness else a.compliance

    per_constraint: dict[str, list[Status]] = defaultdict(list)
    per_family: dict[str, list[Status]] = defaultdict(list)
    by_k: dict[int, list[Status]] = defaultdict(list)
    decided_by: dict[str, int] = defaultdict(int)
    for a in audits:
        by_k[a.k].append(compliance(a))
        for c in a.constraints:
            per_constraint[c.constraint_id].append(c.status)
            per_family[c.family].append(c.status)
            for p in c.points:
                decided_by["skipped" if p.status == "skipped" else p.decided_by] += 1
    rewards = [a.reward for a in audits if a.reward is not None]
    return {
        "items": len(audits),
        "correctness": counts(a.correctness.status for a in audits),
        "compliance": counts(compliance(a) for a in audits),
        "single_constraint": counts(compliance(a) for a in audits if a.k == 1),
        "multi_constraint": counts(compliance(a) for a in audits if a.k >= 2),
        "per_constraint": {c.name: counts(per_constraint[c.id]) for c in catalog.constraints
                           if per_constraint[c.id]},
        "per_family": {f.name: counts(per_family[f.id]) for f in catalog.families if per_family[f.id]},
        "compliance_vs_k": {str(k): counts(by_k[k]) for k in sorted(by_k)},
        "reward": {"mean": fmean(rewards) if rewards else None, "items": len(rewards),
                   "undecided": len(audits) - len(rewards)},
        "points_decided_by": dict(sorted(decided_by.items())),
        "judge_failures": sum(a.judge_failures for a in audits),
    }


def build_report(audits: Sequence[ItemAudit], catalog: Catalog, *, mode: str, judges: Sequence[str],
                 gate_on_correctness: bool = False, missing_answers: int = 0) -> dict[str, Any]:
    by_model: dict[str, list[ItemAudit]] = defaultdict(list)
    for a in audits:
        by_model[a.model].append(a)
    models = {m: model_summary(by_model[m], catalog, gate_on_correctness=gate_on_correctness)
              for m in sorted(by_model)}
    ks = sorted({int(k) for s in models.values() for k in s["compliance_vs_k"]})
    return {
        "suite": "sciif",
        "mode": mode,
        "judges": list(judges),
        "catalog_version": catalog.version,
        "gate_on_correctness": gate_on_correctness,
        "missing_answers": missing_answers,
        "models": models,
        "table1_per_constraint_rate": {
            m: {c.abbrev: s["per_constraint"][c.name]["rate"] for c in catalog.constraints
                if c.name in s["per_constraint"]}
            for m, s in models.items()
        },
        "table5_compliance_vs_k": {
            "k": ks,
            "rows": {m: {str(k): s["compliance_vs_k"].get(str(k), {}).get("rate") for k in ks}
                     for m, s in models.items()},
        },
        "items": [dataclasses.asdict(a) for a in audits],
    }
