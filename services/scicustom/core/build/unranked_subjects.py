"""What else an item is about: the units it is tagged with that no voting judge ranked for the
requirement (issue 13).

Each local voting judge ranks its top 100 of the ontology's units for the requirement (section 2.4;
local_judges.MAX_RANKED); a unit outside every judge's list is, by every judge's account, not what the
requirement asks for. (An LLM voting judge names only the few tags it chooses: no such list.) An item
tagged with such a unit about as strongly as with its best voted unit is mainly about that other
subject, whatever it shares with the topic: MMLU virology's "What is urban yellow fever?" and "Lassa
and Ebola ... what is their origin?" carry Epidemiology beside Viral infection, "HIV transmission to
the infant" carries Pregnancy; for "structure, replication cycles, genome organization and host
interactions" neither unit is in any judge's list (consensus positions 621 and 557 of 641). Units the
topic draws on rank inside the lists: T cell, Apoptosis, Mutation, Genomics (positions 17-57).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from scicustom.core.build.vote import VoteResult

# Tag scores are sigmoids that saturate: 0.99970 and 0.99999 are the same confidence.
AS_STRONG = 0.9


class UnrankedSubjects:
    def __init__(self, votes: VoteResult, tags: Mapping[str, Sequence[tuple[str, float]]],
                 names: Mapping[str, str]) -> None:
        """`tags`: item id -> (unit id, score) of the tagger's units, the scientific ones."""
        self._ranked = frozenset(u for ranking in votes.per_judge.values() for u in ranking)
        self._voted = frozenset(votes.units)
        self._tags = tags
        self._names = names

    def of(self, item_id: str) -> list[str]:
        """Names of the units no judge ranked that the item carries about as strongly as its best voted unit."""
        tags = self._tags.get(item_id, ())
        voted = max((s for u, s in tags if u in self._voted), default=0.0)
        return sorted(self._names.get(u, u) for u, s in tags if u not in self._ranked and s >= AS_STRONG * voted)
