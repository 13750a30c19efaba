"""Ontology terms by their initials: distractors for "what does ABBR stand for" questions.

A definition question whose options are the paper's other long forms gives itself away: only the
answer has the abbreviation's initials. Terms of the ontology vocabulary (unit names and their
keywords) with the same initials are distractors of the right shape, and none is made up.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_WORD_SPLIT = re.compile(r"[\s\-/,]+")


def initials(term: str) -> str:
    """The lowercased first letters of the words of `term` ("polymerase chain reaction" -> "pcr")."""
    return "".join(w[0] for w in _WORD_SPLIT.split(term.strip()) if w and w[0].isalnum()).lower()


def abbreviation_key(short_form: str) -> str:
    """The letters of an abbreviation, lowercased ("mRNA" -> "mrna", "IL-6" -> "il")."""
    return "".join(c for c in short_form if c.isalpha()).lower()


class InitialismIndex:
    def __init__(self, terms: Iterable[str]) -> None:
        self._by_initials: dict[str, list[str]] = {}
        seen: set[str] = set()
        for term in sorted({t.strip() for t in terms if t and t.strip()}):
            words = [w for w in _WORD_SPLIT.split(term) if w]
            if len(words) < 2 or term.lower() in seen:  # a one-word term has no initials to share
                continue
            seen.add(term.lower())
            self._by_initials.setdefault(initials(term), []).append(term)

    def terms_for(self, short_form: str) -> list[str]:
        """Terms whose initials spell the abbreviation's letters, in name order."""
        key = abbreviation_key(short_form)
        return list(self._by_initials.get(key, [])) if len(key) >= 2 else []
