"""Binary search for the relevance cutoff (SciCustom Algorithm 2).

One jury vote per probe; a probe is relevant when a strict majority of judges says so
(vote > |M| / 2). The search keeps the last relevant position it finds, so it needs at most
ceil(log2(N + 1)) probes.

Deviation, on purpose: Algorithm 2 returns L[0 : cutoff], which drops the very item at `cutoff`
that the jury judged relevant and returns one item when only position 0 was relevant (cutoff = 0
is also the "nothing relevant" value). We return L[0 : cutoff + 1] when some probe was relevant
and nothing otherwise, which is the paper's stated definition ("the last position where a majority
still judges the sample as relevant").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass


@dataclass(frozen=True)
class Probe:
    position: int
    item_id: str
    votes: dict[str, bool]

    @property
    def relevant(self) -> bool:
        return sum(self.votes.values()) > len(self.votes) / 2


@dataclass(frozen=True)
class CutoffResult:
    cutoff: int            # last position judged relevant; -1 when none was
    probes: tuple[Probe, ...]
    n_candidates: int

    @property
    def n_selected(self) -> int:
        return self.cutoff + 1


def binary_search_cutoff(item_ids: list[str], vote: Callable[[int, str], Mapping[str, bool]]) -> CutoffResult:
    """`vote(position, item_id)` returns each judge's verdict on the item at that position."""
    low, high, cutoff = 0, len(item_ids) - 1, -1
    probes: list[Probe] = []
    while low <= high:
        mid = low + (high - low) // 2
        probe = Probe(mid, item_ids[mid], dict(vote(mid, item_ids[mid])))
        if not probe.votes:
            raise ValueError("the relevance jury is empty")
        probes.append(probe)
        if probe.relevant:
            cutoff, low = mid, mid + 1
        else:
            high = mid - 1
    return CutoffResult(cutoff, tuple(probes), len(item_ids))


def greedy_scan(
    item_ids: list[str], vote: Callable[[int, str], Mapping[str, bool]], k: int
) -> tuple[list[int], list[Probe]]:
    """The greedy top-K baseline of Appendix C: scan from the top, keep the first k relevant items."""
    kept: list[int] = []
    probes: list[Probe] = []
    for position, item_id in enumerate(item_ids):
        if len(kept) >= k:
            break
        probe = Probe(position, item_id, dict(vote(position, item_id)))
        probes.append(probe)
        if probe.relevant:
            kept.append(position)
    return kept, probes
