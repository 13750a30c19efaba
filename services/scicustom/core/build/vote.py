"""Voting-based knowledge unit selection (SciCustom section 2.4).

Each judge ranks candidate units; a unit's consensus rank is its average rank over judges, where a
unit a judge did not rank gets rank len(candidates) + 1; the top K1 by consensus rank are kept.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from scicustom.core.errors import InvalidInput


@dataclass(frozen=True)
class VoteResult:
    units: tuple[str, ...]             # the top-K1 unit ids, best first
    consensus: dict[str, float]        # average rank of every candidate unit
    per_judge: dict[str, list[str]]    # each judge's ranking, restricted to the candidates

    def mean_rank(self, unit_ids: Sequence[str]) -> float:
        return sum(self.consensus[u] for u in unit_ids) / len(unit_ids)


def aggregate_votes(rankings: Mapping[str, Sequence[str]], candidates: Sequence[str], k1: int) -> VoteResult:
    if not rankings:
        raise InvalidInput("jury", "no judge voted")
    if k1 < 1:
        raise InvalidInput("k1", "must be >= 1")
    position = {unit: i for i, unit in enumerate(candidates)}
    missing_rank = len(candidates) + 1
    cleaned: dict[str, list[str]] = {}
    for judge, ranking in rankings.items():
        seen: list[str] = []
        for unit in ranking:  # ignore units outside the candidates and repeats
            if unit in position and unit not in seen:
                seen.append(unit)
        cleaned[judge] = seen
    consensus: dict[str, float] = {}
    for unit in candidates:
        ranks = []
        for ranking in cleaned.values():
            ranks.append(ranking.index(unit) + 1 if unit in ranking else missing_rank)
        consensus[unit] = sum(ranks) / len(ranks)
    # Stable tie-break on the candidate order, so equal inputs give equal outputs.
    ordered = sorted(candidates, key=lambda u: (consensus[u], position[u]))
    # A unit no judge ranked is not relevant by any judge's account: never select it.
    voted = [u for u in ordered if consensus[u] < missing_rank][:k1]
    return VoteResult(units=tuple(voted), consensus=consensus, per_judge=cleaned)
