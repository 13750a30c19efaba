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


BROAD_SHARE = 0.015  # a unit the index puts on more than 1.5% of the corpus is a whole field


def prefer_specific(ordered: Sequence[str], names: Mapping[str, str], counts: Mapping[str, int], n_items: int,
                    requirement_text: str) -> tuple[list[str], list[str]]:
    """Move broad units behind the specific ones; returns (new order, the demoted units).

    A unit is broad when it is the head of another ranked unit's name ("Physiology" above
    "Renal physiology", the name hierarchy of the ontology-derived units) or when the unit index
    carries it on more than `BROAD_SHARE` of the corpus (Biochemistry, Drug, Chemical element).
    A broad unit the requirement itself names ("a benchmark on physiology") stays where the jury put it.
    """
    text = requirement_text.casefold()
    lowered = {u: names[u].casefold() for u in ordered}
    demoted = []
    for unit in ordered:
        name = lowered[unit]
        narrower = [lowered[o] for o in ordered if o != unit and lowered[o].endswith(" " + name)]
        own_text = text
        for longer in narrower:  # "renal physiology" in the text does not name "physiology"
            own_text = own_text.replace(longer, " ")
        if name in own_text:
            continue
        head_of_other = bool(narrower)
        frequent = n_items > 0 and counts.get(unit, 0) > BROAD_SHARE * n_items
        if head_of_other or frequent:
            demoted.append(unit)
    kept = [u for u in ordered if u not in demoted]
    return kept + demoted, demoted
