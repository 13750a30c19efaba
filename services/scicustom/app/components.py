"""What the use cases are given: the components the composition root wires (`bootstrap.Context`
provides them), each built on first use, so a request that fails early never loads a model."""

from __future__ import annotations

from typing import Protocol

from scicustom.core.units import UnitCatalog
from scicustom.ports import (
    LLM,
    AnswerPerplexity,
    CorpusRepository,
    Embedder,
    ObjectStore,
    Tagger,
    UnitIndex,
    VectorIndex,
)


class Components(Protocol):
    @property
    def store(self) -> ObjectStore: ...
    @property
    def corpus(self) -> CorpusRepository: ...
    @property
    def catalog(self) -> UnitCatalog: ...
    @property
    def unit_index(self) -> UnitIndex: ...   # items x units of the current tagger
    @property
    def vector_index(self) -> VectorIndex: ...
    @property
    def embedder(self) -> Embedder: ...
    @property
    def perplexity(self) -> AnswerPerplexity: ...
    @property
    def tagger(self) -> Tagger: ...
    @property
    def llm(self) -> LLM: ...

    def current_index(self) -> dict[str, str]:
        """The tagger version and unit-index key builds use now; PreconditionFailed before tagging."""
        ...
