"""The verifier reward with grouped severity (SciIF Appendix C.4).

R_g = sum_{i in g} w_i s_i / sum_{i in g} w_i over the enabled constraints of group g (eq. 4);
R_c = sum_g W_g R_g / sum_g W_g over the groups with an enabled constraint (eq. 5);
R = 0.7 R_c + 0.3 R_a with R_a the binary correctness (eq. 6).
"""

from __future__ import annotations

from collections.abc import Mapping

from scicustom.core.sciif.catalog import RewardWeights


def compliance_reward(weights: RewardWeights, passed: Mapping[str, bool]) -> float:
    """R_c for the enabled constraints in `passed` (constraint id -> s_i)."""
    numerator = denominator = 0.0
    for group in weights.groups:
        enabled = [cid for cid in group.members if cid in passed]
        if not enabled:
            continue
        w_total = sum(group.members[cid] for cid in enabled)
        r_g = sum(group.members[cid] for cid in enabled if passed[cid]) / w_total
        numerator += group.weight * r_g
        denominator += group.weight
    unknown = set(passed) - {cid for g in weights.groups for cid in g.members}
    if unknown:
        raise KeyError(f"constraints in no reward group: {sorted(unknown)}")
    return numerator / denominator if denominator else 0.0


def total_reward(weights: RewardWeights, passed: Mapping[str, bool], correct: bool) -> float:
    return (weights.compliance_weight * compliance_reward(weights, passed)
            + weights.correctness_weight * (1.0 if correct else 0.0))


def item_reward(weights: RewardWeights, statuses: Mapping[str, str], correctness: str) -> float | None:
    """R for one audited item, or None while any of its inputs is undecided."""
    if correctness == "undecided" or any(s == "undecided" for s in statuses.values()):
        return None
    return total_reward(weights, {cid: s == "pass" for cid, s in statuses.items()}, correctness == "pass")
