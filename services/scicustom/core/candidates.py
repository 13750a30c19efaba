"""Candidate retrieval order (SciCustom section 2.5).

Candidates are the items sharing at least one voted unit. d_i ranks above d_j when it shares more
voted units, then when the mean consensus rank of its shared units is lower; the item id breaks
remaining ties so the order is total and reproducible.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Candidate:
    item_id: str
    shared_units: tuple[str, ...]
    mean_rank: float


def order_candidates(shared: Mapping[str, Sequence[str]], consensus: Mapping[str, float]) -> list[Candidate]:
    candidates = []
    for item_id, units in shared.items():
        if not units:
            continue
        ordered_units = tuple(sorted(units, key=lambda u: (consensus[u], u)))
        mean = sum(consensus[u] for u in ordered_units) / len(ordered_units)
        candidates.append(Candidate(item_id, ordered_units, mean))
    candidates.sort(key=lambda c: (-len(c.shared_units), c.mean_rank, c.item_id))
    return candidates
