"""Lower-cased fields, their token sets and the reasoning steps, computed once and shared by the metrics."""

from __future__ import annotations

from scicustom.core.m2m.reasoning_steps import split_reasoning
from scicustom.core.m2m.records import M2MRecords
from scicustom.core.m2m.text_primitives import WORD_RUN_PATTERN, overlap_token_sets
from scicustom.core.m2m.vocabulary import M2MVocabulary

REASONING = "reasoning_process"


class PreparedTexts:
    def __init__(self, records: M2MRecords, vocabulary: M2MVocabulary) -> None:
        self.records = records
        self.vocabulary = vocabulary
        self._lower: dict[str, list[str]] = {}
        self._tokens: dict[str, list[frozenset[str]]] = {}
        self._steps: list[list[str]] | None = None
        self._around_steps: list[str | None] = []
        self._step_tokens: list[list[frozenset[str]]] = []

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
            self._tokens[field] = overlap_token_sets(self.vocabulary.overlap_token, self.lower(field))
        return self._tokens[field]

    def steps(self) -> list[list[str]]:
        """The stripped, non-empty reasoning steps of each row."""
        if self._steps is None:
            split = [split_reasoning(self.vocabulary.step_pattern, r) for r in self.raw(REASONING)]
            self._steps = [steps for steps, _ in split]
            self._around_steps = [around for _, around in split]
            self._step_tokens = [overlap_token_sets(self.vocabulary.overlap_token, [s.lower() for s in steps])
                                 for steps in self._steps]
        return self._steps

    def step_tokens(self) -> list[list[frozenset[str]]]:
        """The token set of each reasoning step, per row."""
        self.steps()
        return self._step_tokens

    def reasoning_runs(self) -> list[tuple[frozenset[str], ...]]:
        """Sets whose union is the set of word runs of each row's lower-cased reasoning: its steps' and
        those of the text around them (see `split_reasoning`), which spares tokenising it all twice."""
        self.steps()
        around = [a.lower() for a in self._around_steps if a is not None]
        if self.vocabulary.overlap_token.pattern != WORD_RUN_PATTERN or len(around) != len(self):
            return [(runs,) for runs in self.tokens(REASONING)]
        around_runs = overlap_token_sets(self.vocabulary.overlap_token, around)
        return [(*steps, rest) for steps, rest in zip(self._step_tokens, around_runs, strict=True)]
