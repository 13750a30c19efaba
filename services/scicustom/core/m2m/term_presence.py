"""Which of a list of lower-case terms occur in each of many long lower-cased texts, without scanning
every text once per term (the cost that dominates a row-by-row implementation).

A term made only of word characters occurs in a text exactly when it is a substring of one of the
text's word runs (`\\w+`): an occurrence cannot cross a non-word character. So the distinct word runs of
all texts are indexed once, each term is looked up in that index, and a sparse rows × runs incidence
times a runs × terms incidence gives the presence matrix. A term with non-word characters ("c-rate",
"charge transfer") can only occur where each of its word pieces does: that test picks the candidate rows,
and the real substring test runs on those only. Under `word_bounded_terms` a word-only term must equal a
word run, a truncated stem must start one, and terms with non-word characters are confirmed by regex.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import chain

import numpy as np

from scicustom.core.m2m.scoring_options import STEM_TERMS
from scicustom.core.m2m.text_primitives import TermMatcher

_WORD_ONLY = re.compile(r"\w+")
_NON_WORD = re.compile(r"\W+")


Lookup = tuple[str, str]  # (how, text): "contains", "equals" or "starts" a word run


class TermPresence:
    def __init__(self, terms: Sequence[str], word_bounded: bool) -> None:
        self.terms = tuple(terms)
        self._matcher = TermMatcher(terms, word_bounded)
        # Word-only terms are decided by the index alone; the others by their pieces, then confirmed.
        self._exact: list[Lookup | None] = []
        self._pieces: list[tuple[Lookup, ...]] = []
        for term in self.terms:
            if _WORD_ONLY.fullmatch(term):
                how = "contains" if not word_bounded else "starts" if term in STEM_TERMS else "equals"
                self._exact.append((how, term))
                self._pieces.append(())
            else:
                self._exact.append(None)
                self._pieces.append(tuple(("contains", p) for p in _NON_WORD.split(term) if p))

    def counts(self, texts: Sequence[str], runs: Sequence[Sequence[frozenset[str]]],
               groups: Sequence[Sequence[str]]) -> list[np.ndarray]:
        """For each group of terms (all in `terms`), how many of them occur in each text."""
        present = self.matrix(texts, runs)
        where = {term: k for k, term in enumerate(self.terms)}
        return [present[:, [where[t] for t in group]].sum(axis=1) for group in groups]

    def matrix(self, texts: Sequence[str], runs: Sequence[Sequence[frozenset[str]]]) -> np.ndarray:
        """Boolean rows × terms; the word runs of `texts[i]` are the union of the sets `runs[i]` (those of
        its parts, when it is parts joined by spaces: their union is not built, only searched)."""
        n_rows = len(texts)
        index = _RunIndex(frozenset().union(*chain.from_iterable(runs)))
        lookups = {x for x in self._exact if x is not None} | {p for ps in self._pieces for p in ps}
        runs_of = {lookup: index.find(lookup) for lookup in lookups}
        # A lookup is answered from an inverted index of its runs unless it is inside very many runs (a
        # piece like "c"): then a direct test on each text is cheaper than intersecting every row with them.
        indexed = {lookup for lookup, found in runs_of.items() if len(found) <= _INDEXED_RUNS}
        relevant = frozenset().union(*(runs_of[lookup] for lookup in indexed))
        rows_of: dict[str, list[int]] = {run: [] for run in relevant}
        for row, parts in enumerate(runs):
            for run in set().union(*[relevant & part for part in parts]):  # each run once, in any parts
                rows_of[run].append(row)
        has: dict[Lookup, np.ndarray] = {}
        for lookup, found_runs in runs_of.items():
            found = np.zeros(n_rows, dtype=bool)
            if lookup in indexed:
                for run in found_runs:
                    found[rows_of[run]] = True
            elif lookup[0] == "contains":
                name = lookup[1]
                found[:] = [name in t for t in texts]
            else:
                found[:] = [_occurs(lookup, t) for t in texts]
            has[lookup] = found
        present = np.zeros((n_rows, len(self.terms)), dtype=bool)
        for k, (exact, pieces) in enumerate(zip(self._exact, self._pieces, strict=True)):
            if exact is not None:
                present[:, k] = has[exact]
                continue
            candidates = np.ones(n_rows, dtype=bool)
            for piece in pieces:
                candidates &= has[piece]
            for row in np.flatnonzero(candidates).tolist():
                present[row, k] = self._matcher.present_one(k, texts[row])
        return present


_INDEXED_RUNS = 256  # distinct runs holding a lookup, above which a direct test on each text is cheaper


def _occurs(lookup: Lookup, text: str) -> bool:
    how, name = lookup
    if how == "contains":
        return name in text
    if how == "starts":
        return re.search(r"(?<!\w)" + re.escape(name), text) is not None
    return re.search(r"(?<!\w)" + re.escape(name) + r"(?!\w)", text) is not None


class _RunIndex:
    """The distinct word runs joined by newlines, searched once per lookup."""

    def __init__(self, runs: frozenset[str]) -> None:
        self._runs = sorted(runs)
        self._set = runs
        self._joined = "\n".join(self._runs)
        lengths = np.array([len(r) + 1 for r in self._runs], dtype=np.int64)
        self._starts = np.concatenate(([0], np.cumsum(lengths)[:-1])) if self._runs else np.zeros(0, np.int64)

    def find(self, lookup: Lookup) -> set[str]:
        how, name = lookup
        if how == "equals":
            return {name} if name in self._set else set()
        prefix = "(?m)^" if how == "starts" else ""
        positions = [m.start() for m in re.finditer(prefix + re.escape(name), self._joined)]
        if not positions:
            return set()
        found = np.searchsorted(self._starts, positions, side="right") - 1
        return {self._runs[i] for i in found.tolist()}  # a set: no np.unique (it imports numpy.ma)
