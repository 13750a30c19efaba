"""Which corpus rows name each (stemmed) term: tokenised once per build world, so that each
requirement's relevance evidence counts terms over any set of rows without tokenising them again."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from scicustom.core.lexical import term_tokens

_NONE = np.zeros(0, dtype=np.int64)


class TermPostings:
    """Rows are positions in the texts given (the world's item order)."""

    def __init__(self, texts: Sequence[str]) -> None:
        rows: dict[str, list[int]] = {}
        for row, text in enumerate(texts):
            for term in set(term_tokens(text)):
                rows.setdefault(term, []).append(row)
        self._rows = {term: np.asarray(r, dtype=np.int64) for term, r in rows.items()}
        self.n_rows = len(texts)

    def rows(self, term: str) -> np.ndarray:
        """The rows naming `term`, ascending."""
        return self._rows.get(term, _NONE)

    def rows_naming_all(self, terms: Iterable[str]) -> np.ndarray:
        """The rows naming every one of `terms`, ascending."""
        found: np.ndarray | None = None
        for term in terms:
            rows = self.rows(term)
            found = rows if found is None else np.intersect1d(found, rows, assume_unique=True)
        return _NONE if found is None else found

    def mask(self, rows: Iterable[int]) -> np.ndarray:
        selected = np.zeros(self.n_rows, dtype=bool)
        selected[np.fromiter(rows, dtype=np.int64)] = True
        return selected
