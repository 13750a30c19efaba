"""The one composition root: settings -> adapters -> the components the edges use.

Nothing is wired at import time; components are created on first use, so a command that needs
only the corpus never loads a model.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property

from scicustom.adapters.filesystem_store import FilesystemObjectStore
from scicustom.adapters.llm_response_cache import LLMResponseCache
from scicustom.adapters.parquet_corpus import ParquetCorpusRepository
from scicustom.adapters.traced_llm import TracedLLM
from scicustom.adapters.traced_object_store import TracedObjectStore
from scicustom.adapters.traced_search_index import traced_index
from scicustom.app.index_keys import CALIBRATION_KEY, CURRENT_INDEX_KEY
from scicustom.config import Settings
from scicustom.core.errors import InvalidInput, PreconditionFailed
from scicustom.core.units import UnitCatalog
from scicustom.ports import (
    LLM,
    AnswerPerplexity,
    CorpusRepository,
    Embedder,
    EventBus,
    ObjectStore,
    SearchIndex,
    Tagger,
    UnitIndex,
    VectorIndex,
)

EMBEDDING_DIMS = 384  # all-MiniLM-L6-v2


@dataclass
class Context:
    settings: Settings

    @classmethod
    def from_environment(cls) -> Context:
        """The one place the platform reads its settings (SCICUSTOM_* variables)."""
        return cls(Settings())

    @property
    def cluster(self) -> bool:
        return self.settings.profile == "cluster"

    def _require(self, name: str) -> str:
        value = getattr(self.settings, name)
        if not value:
            raise PreconditionFailed(f"the cluster profile needs SCICUSTOM_{name.upper()}")
        return str(value)

    # Every port with a side effect is wrapped in spans; without OTEL_* configuration the spans
    # are no-ops, so the embedded profile pays next to nothing.
    @cached_property
    def store(self) -> ObjectStore:
        if self.cluster:
            from scicustom.adapters.minio_store import MinioObjectStore

            s = self.settings
            return TracedObjectStore(MinioObjectStore.connect(self._require("s3_endpoint"), s.s3_access_key,
                                                              s.s3_secret_key, s.s3_bucket, secure=s.s3_secure))
        return TracedObjectStore(FilesystemObjectStore(self.settings.store_dir))

    @cached_property
    def event_bus(self) -> EventBus:
        if self.cluster:
            from scicustom.adapters.kafka_bus import KafkaEventBus

            return KafkaEventBus(self._require("kafka_bootstrap"), client_id=self.settings.kafka_client_id,
                                 session_timeout_ms=self.settings.kafka_session_timeout_ms,
                                 security=self.settings.kafka_security())
        from scicustom.adapters.memory_bus import InMemoryEventBus

        return InMemoryEventBus()

    def current_index(self) -> dict[str, str]:
        """The tagger version and unit-index key builds use now (written by `corpus tag` / `tag`)."""
        if not self.store.exists(CURRENT_INDEX_KEY):
            raise PreconditionFailed("the corpus is not tagged yet; run `scicustom corpus tag`")
        return dict(json.loads(self.store.get_bytes(CURRENT_INDEX_KEY)))

    @cached_property
    def unit_index(self) -> UnitIndex:
        """Items x units of the current tagger: Elasticsearch in the cluster, scipy-sparse embedded."""
        if self.cluster:
            return self.search_index
        from scicustom.adapters.sparse_unit_index import SparseUnitIndex

        return traced_index(SparseUnitIndex.load(self.store, self.current_index()["index_key"]))

    @cached_property
    def search_index(self) -> SearchIndex:
        """The cluster's Elasticsearch index of tagged items (units, text, intrinsic scores, embedding)."""
        from elasticsearch import Elasticsearch

        from scicustom.adapters.elasticsearch_index import ElasticsearchSearchIndex

        s = self.settings
        auth = (s.elasticsearch_username, s.elasticsearch_password or "") if s.elasticsearch_username else None
        client = Elasticsearch(self._require("elasticsearch_url"), request_timeout=60, basic_auth=auth,
                               ca_certs=str(s.elasticsearch_ca_certs) if s.elasticsearch_ca_certs else None)
        return traced_index(ElasticsearchSearchIndex.create(client, self.settings.elasticsearch_index,
                                                            [u.id for u in self.catalog.units], EMBEDDING_DIMS))

    @cached_property
    def vector_index(self) -> VectorIndex:
        if self.cluster:
            return self.search_index
        from scicustom.adapters.embedded_vector_index import EmbeddedVectorIndex

        ids, matrix = self.corpus.load_embeddings(self.embedder.name)
        if not ids:
            raise PreconditionFailed("no item is embedded yet; run `scicustom corpus tag`")
        return traced_index(EmbeddedVectorIndex(ids, matrix))

    @cached_property
    def tagger(self) -> Tagger:
        """The tagger of the current index: the trained model (remote over OIP v2 when
        SCICUSTOM_TAGGER_URL is set, else ONNX in process) or the calibrated zero-shot baseline."""
        version = self.current_index()["tagger_version"]
        if version.startswith("zeroshot-"):
            from scicustom.core.zero_shot_tagger import ZeroShotParams, ZeroShotTagger

            if not self.store.exists(CALIBRATION_KEY):
                raise PreconditionFailed("the zero-shot tagger is not calibrated; run `scicustom corpus tag`")
            threshold = float(json.loads(self.store.get_bytes(CALIBRATION_KEY))["threshold"])
            return ZeroShotTagger(self.embedder, self.catalog, ZeroShotParams(threshold=threshold))
        if self.settings.tagger_url:
            from scicustom.adapters.triton_tagger import TritonTagger

            return TritonTagger(self.settings.tagger_url, protocol=self.settings.tagger_protocol,
                                model_name=self.settings.tagger_model_name)
        from scicustom.adapters.onnx_tagger import OnnxTagger
        from scicustom.tagger.artifact import current_artifact_dir

        return OnnxTagger(current_artifact_dir(self.settings.home, version))

    @cached_property
    def corpus(self) -> CorpusRepository:
        return ParquetCorpusRepository(self.store)

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
        return TracedLLM(LiteLLMAdapter(cache, max_retries=self.settings.llm_max_retries,
                              requests_per_minute=self.settings.llm_requests_per_minute,
                              timeout_s=self.settings.llm_timeout_s, api_base=self.settings.llm_api_base,
                              api_key=self.settings.llm_api_key))
