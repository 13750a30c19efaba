"""Lower-cased fields and their token sets, computed once per field and shared by the metrics."""

from __future__ import annotations

from scicustom.core.m2m.records import M2MRecords
from scicustom.core.m2m.text_primitives import overlap_tokens
from scicustom.core.m2m.vocabulary import M2MVocabulary


class PreparedTexts:
    def __init__(self, records: M2MRecords, vocabulary: M2MVocabulary) -> None:
        self.records = records
        self.vocabulary = vocabulary
        self._lower: dict[str, list[str]] = {}
        self._tokens: dict[str, list[frozenset[str]]] = {}

    def __len__(self) -> int:
        return len(self.records)

    def raw(self, field: str) -> tuple[str, ...]:
        return self.records.text(field)

    def lower(self, field: str) -> list[str]:
        if field not in self._lower:
            self._lower[field] = [t.lower() for t in self.records.text(field)]
        return self._lower[field]

    def tokens(self, field: str) -> list[frozenset[str]]:
        """Token sets of the field; `str.lower` is idempotent, so raw and lowered text give the same."""
        if field not in self._tokens:
            pattern = self.vocabulary.overlap_token
            self._tokens[field] = [frozenset(overlap_tokens(pattern, t)) for t in self.lower(field)]
        return self._tokens[field]
