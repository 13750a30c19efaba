"""What a model answered, and the seams evaluation runs through: answerers, progress and outputs."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Protocol

from scicustom.core.evaluation.benchmark_lines import MCQItem


@dataclass(frozen=True)
class ModelAnswer:
    """An answerer's output for one item."""

    text: str  # the model's reply, or the scored label for a local scorer
    chosen: str | None  # None: no label could be read (counted wrong)
    rule: str  # how `chosen` was decided (label-extraction rule or scoring mode)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    cached: bool = False
    scores: Mapping[str, float] | None = None  # local scorers: log-likelihood per label


@dataclass(frozen=True)
class ItemResponse:
    item_id: str
    query_sha: str
    answer: str
    chosen: str | None
    correct: bool
    rule: str
    text: str
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float
    cached: bool
    scores: Mapping[str, float] | None

    @classmethod
    def of(cls, item: MCQItem, answer: ModelAnswer) -> ItemResponse:
        return cls(
            item_id=item.id, query_sha=item.query_sha, answer=item.answer, chosen=answer.chosen,
            correct=answer.chosen == item.answer, rule=answer.rule, text=answer.text,
            prompt_tokens=answer.prompt_tokens, completion_tokens=answer.completion_tokens,
            cost_usd=answer.cost_usd, cached=answer.cached,
            scores=None if answer.scores is None else dict(answer.scores),
        )

    def to_record(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_record(cls, record: Mapping[str, Any]) -> ItemResponse:
        return cls(**{name: record[name] for name in cls.__dataclass_fields__})


class MCQAnswerer(Protocol):
    """Answers MCQs with one model: a chat model through the LLM port or a local scorer."""

    name: str
    batch_size: int  # items per `answer_batch` call
    max_workers: int  # batches that may run at once (1 for a model in this process)

    def fingerprint(self) -> str:
        """Changes whenever the answers could change (model, parameters, prompt)."""
        ...

    def answer_batch(self, items: Sequence[MCQItem]) -> list[ModelAnswer]: ...


class ProgressStore(Protocol):
    """Per-model responses saved during a run, so a rerun after a kill repeats nothing.
    `save` replaces the whole record atomically."""

    def load(self, model: str, fingerprint: str) -> list[ItemResponse]: ...

    def save(self, model: str, fingerprint: str, responses: Sequence[ItemResponse]) -> None: ...


class EvaluationOutputs(Protocol):
    """Where an evaluation goes: each model's responses, the results, the ranking, and the progress
    a rerun resumes from. Every write replaces the whole file atomically."""

    @property
    def progress(self) -> ProgressStore: ...

    def write_responses(self, model: str, responses: Iterable[ItemResponse]) -> Path: ...

    def write_results(self, document: Mapping[str, Any]) -> Path: ...

    def write_ranking(self, document: Mapping[str, Any]) -> Path: ...
