"""Candidate retrieval order (SciCustom section 2.5).

Candidates are the items sharing at least one voted unit. d_i ranks above d_j when it shares more
voted units, then when the mean consensus rank of its shared units is lower; the item id breaks
remaining ties so the order is total and reproducible.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

# Consensus ranks are means over a handful of judges (k/n); compare them as exact fractions, so
# equal means tie exactly instead of differing in the last float bit (7/3 + 4 vs 4 + 7/3).
_MAX_JUDGES = 1000


def _exact(rank: float) -> Fraction:
    return Fraction(rank).limit_denominator(_MAX_JUDGES)


@dataclass(frozen=True)
class Candidate:
    item_id: str
    shared_units: tuple[str, ...]
    mean_rank: Fraction | float


def order_candidates(shared: Mapping[str, Sequence[str]], consensus: Mapping[str, float]) -> list[Candidate]:
    candidates = []
    for item_id, units in shared.items():
        if not units:
            continue
        ordered_units = tuple(sorted(units, key=lambda u: (_exact(consensus[u]), u)))
        mean = sum((_exact(consensus[u]) for u in ordered_units), Fraction(0)) / len(ordered_units)
        candidates.append(Candidate(item_id, ordered_units, mean))
    candidates.sort(key=lambda c: (-len(c.shared_units), c.mean_rank, c.item_id))
    return candidates
