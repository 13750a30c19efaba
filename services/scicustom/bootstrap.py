"""The one composition root: settings -> adapters -> the components the edges use.

Nothing is wired at import time; components are created on first use, so a command that needs
only the corpus never loads a model.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from functools import cached_property

from scicustom.adapters.filesystem_store import FilesystemObjectStore
from scicustom.adapters.llm_response_cache import LLMResponseCache
from scicustom.adapters.parquet_corpus import CorpusRepository
from scicustom.config import Settings
from scicustom.core.errors import InvalidInput, PreconditionFailed
from scicustom.core.units import UnitCatalog
from scicustom.ports import LLM, AnswerPerplexity, Embedder, ObjectStore


@dataclass
class Context:
    settings: Settings = field(default_factory=Settings)

    @cached_property
    def store(self) -> ObjectStore:
        if self.settings.profile == "cluster":
            raise PreconditionFailed("the cluster profile needs the distributed adapters (MinIO, Kafka, "
                                     "Elasticsearch), which this build does not include yet")
        return FilesystemObjectStore(self.settings.store_dir)

    @cached_property
    def corpus(self) -> CorpusRepository:
        return CorpusRepository(self.store)

    @cached_property
    def catalog(self) -> UnitCatalog:
        path = self.settings.units_file
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise InvalidInput("units_file", f"{path} does not exist") from None
        except json.JSONDecodeError as exc:
            raise InvalidInput("units_file", f"{path} is not JSON: {exc}") from None
        return UnitCatalog.from_mapping(data)

    @cached_property
    def embedder(self) -> Embedder:
        from scicustom.adapters.minilm_embedder import MiniLMEmbedder

        return MiniLMEmbedder(batch_size=self.settings.embed_batch)

    @cached_property
    def perplexity(self) -> AnswerPerplexity:
        from scicustom.adapters.smollm_perplexity import SmolLMPerplexity

        return SmolLMPerplexity(self.settings.model_cache, batch_size=self.settings.perplexity_batch,
                                max_question_tokens=self.settings.perplexity_max_question_tokens)

    @cached_property
    def llm(self) -> LLM:
        from scicustom.adapters.litellm_llm import LiteLLMAdapter

        cache = LLMResponseCache(self.settings.llm_cache_path / "responses.sqlite")
        return LiteLLMAdapter(cache, max_retries=self.settings.llm_max_retries,
                              requests_per_minute=self.settings.llm_requests_per_minute,
                              timeout_s=self.settings.llm_timeout_s, api_base=self.settings.llm_api_base,
                              api_key=self.settings.llm_api_key)
