"""The one composition root: settings -> adapters -> the components the edges use.

Nothing is wired at import time; components are created on first use, so a command that needs
only the corpus never loads a model.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from scicustom.adapters.filesystem_store import FilesystemObjectStore
from scicustom.adapters.llm_response_cache import LLMResponseCache
from scicustom.adapters.parquet_corpus import ParquetCorpusRepository
from scicustom.adapters.traced_llm import TracedLLM
from scicustom.adapters.traced_object_store import TracedObjectStore
from scicustom.adapters.traced_search_index import traced_index
from scicustom.app.index_keys import CURRENT_INDEX_KEY
from scicustom.app.ontology.source_requests import OntologySources
from scicustom.app.ontology.unit_sets import UNIT_SETS_PREFIX, BlobStore
from scicustom.app.ontology.workspace import OntologyWorkspace
from scicustom.config import Settings, revealed
from scicustom.core.errors import InvalidInput, PreconditionFailed
from scicustom.core.units import UnitCatalog
from scicustom.ports import (
    LLM,
    AnswerPerplexity,
    CorpusRepository,
    Embedder,
    EventBus,
    LabelVectors,
    ObjectStore,
    OntologyStore,
    PackagedCorpus,
    SearchIndex,
    Tagger,
    TaggerArtifacts,
    TaggerModelRepository,
    TaggerTrainer,
    UnitIndex,
    UnitIndexWriter,
    VectorIndex,
)

if TYPE_CHECKING:
    from scicustom.adapters.packaged_models import PreparedModels
    from scicustom.app.build.request import JuryOptions
    from scicustom.app.build.world_cache import WorldCache
    from scicustom.core.build.pipeline import BuildWorld
    from scicustom.core.evaluation.model_spec import LocalModelSpec, ProviderSpec
    from scicustom.core.evaluation.responses import EvaluationOutputs, MCQAnswerer
    from scicustom.core.progress import Progress
    from scicustom.core.requirement import Requirement

EMBEDDING_DIMS = 384  # all-MiniLM-L6-v2


@dataclass
class Context:
    settings: Settings

    @classmethod
    def from_environment(cls, profile: str | None = None) -> Context:
        """The one place the platform reads its settings (SCICUSTOM_* variables); `profile`
        (the CLI's --profile) overrides SCICUSTOM_PROFILE for this process only."""
        return cls(Settings() if profile is None else Settings(profile=profile))

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
            return TracedObjectStore(MinioObjectStore.connect(self._require("s3_endpoint"), revealed(s.s3_access_key),
                                                              revealed(s.s3_secret_key), s.s3_bucket,
                                                              secure=s.s3_secure))
        return TracedObjectStore(FilesystemObjectStore(self.settings.store_dir))

    @cached_property
    def event_bus(self) -> EventBus:
        if self.cluster:
            from scicustom.adapters.kafka_bus import KafkaEventBus

            return KafkaEventBus(self._require("kafka_bootstrap"), client_id=self.settings.kafka_client_id,
                                 session_timeout_ms=self.settings.kafka_session_timeout_ms,
                                 security=self.settings.kafka_security(),
                                 replication_factor=self.settings.kafka_replication_factor,
                                 max_poll_interval_ms=self.settings.kafka_max_poll_interval_ms)
        from scicustom.adapters.memory_bus import InMemoryEventBus

        return InMemoryEventBus()

    def current_index(self) -> dict[str, str]:
        """The tagger version and unit-index key builds use now (written by `corpus tag` / `tag`)."""
        if not self.store.exists(CURRENT_INDEX_KEY):
            raise PreconditionFailed("the corpus is not tagged yet; run `scicustom corpus tag`")
        current = dict(json.loads(self.store.get_bytes(CURRENT_INDEX_KEY)))
        # An index records its embedder (`corpus tag` writes it; older indexes hold fp32 MiniLM vectors
        # and have no record): querying it with another would compare vectors of two models.
        built_with = current.get("embedder")
        if built_with is not None and built_with != self.embedder.name:
            raise PreconditionFailed(f"the index was built with embedder {built_with!r}, this process uses "
                                     f"{self.embedder.name!r}: set SCICUSTOM_EMBEDDER to match, or run "
                                     "`scicustom corpus tag` with this one")
        return current

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
        password = revealed(s.elasticsearch_password) or ""
        auth = (s.elasticsearch_username, password) if s.elasticsearch_username else None
        client = Elasticsearch(self._require("elasticsearch_url"), request_timeout=60, basic_auth=auth,
                               ca_certs=str(s.elasticsearch_ca_certs) if s.elasticsearch_ca_certs else None)
        return traced_index(ElasticsearchSearchIndex.create(client, self.settings.elasticsearch_index,
                                                            [u.id for u in self.catalog.units], EMBEDDING_DIMS,
                                                            shards=s.elasticsearch_shards,
                                                            replicas=s.elasticsearch_replicas))

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
            from scicustom.app.tagging.corpus_tagging import zero_shot_threshold
            from scicustom.core.zero_shot_tagger import ZeroShotParams, ZeroShotTagger

            threshold = zero_shot_threshold(self.store)
            return ZeroShotTagger(self.embedder, self.catalog, ZeroShotParams(threshold=threshold))
        if self.settings.tagger_url:
            return self.remote_tagger(self.settings.tagger_url, self.settings.tagger_protocol,
                                      self.settings.tagger_model_name)
        return self.tagger_artifacts.tagger(self.tagger_artifacts.load(version), embedder=self.embedder)

    def remote_tagger(self, url: str, protocol: Literal["grpc", "http"] = "grpc", model_name: str = "tagger") -> Tagger:
        """The tagger model behind KServe or Triton (Open Inference Protocol v2) at `url`."""
        from scicustom.adapters.triton_tagger import TritonTagger

        return TritonTagger(url, protocol=protocol, model_name=model_name)

    @staticmethod
    def trained_tagger_at(directory: Path, threads: int | None = None) -> Tagger:
        """The trained version in `directory`, run in process (the KServe model server's tagger). A version
        with a sentence-vector head encodes the texts a request brings no vectors for with the embedder
        the settings name (SCICUSTOM_EMBEDDER), loaded here so that readiness means ready."""
        from scicustom.adapters.onnx_tagger import OnnxTagger

        embedder = Context.from_environment().embedder
        tagger = OnnxTagger(directory, threads=threads, embedder=embedder)
        if tagger.artifact.head is not None:
            embedder.encode(["warm-up"])
        return tagger

    @staticmethod
    def has_trained_tagger(home: Path) -> bool:
        """Whether the home at `home` holds a current trained tagger (the dev cluster then serves it)."""
        from scicustom.adapters.tagger_artifact_store import tagger_root

        return (tagger_root(home) / "current.json").exists()

    @cached_property
    def tagger_artifacts(self) -> TaggerArtifacts:
        from scicustom.adapters.tagger_artifact_store import TaggerArtifactStore, tagger_root

        return TaggerArtifactStore(tagger_root(self.settings.home))

    @cached_property
    def tagger_trainer(self) -> TaggerTrainer:
        """PyTorch networks on the packaged MiniLM tokenizer and its distilled token vectors (cached)."""
        from scicustom.adapters.minilm_token_vectors import distil_token_vectors
        from scicustom.adapters.packaged_models import minilm_path
        from scicustom.adapters.torch_tagger_trainer import TorchTaggerTrainer

        return TorchTaggerTrainer(lambda: minilm_path() / "tokenizer.json",
                                  lambda: distil_token_vectors(self.settings.model_cache))

    @cached_property
    def tagger_model_repository(self) -> TaggerModelRepository:
        from scicustom.adapters.triton_model_repository import TritonModelRepository

        def sentence_graph() -> Path:
            # Exported (seconds, torch) only when a version with a sentence-vector head is written.
            from scicustom.adapters.minilm_onnx_export import ensure_minilm_onnx

            return ensure_minilm_onnx(self.settings.model_cache)

        return TritonModelRepository(sentence_graph=sentence_graph)

    @cached_property
    def unit_index_writer(self) -> UnitIndexWriter:
        from scicustom.adapters.sparse_unit_index_writer import SparseUnitIndexWriter

        return SparseUnitIndexWriter(self.store)

    @cached_property
    def packaged_corpus(self) -> PackagedCorpus:
        from scicustom.adapters.corpus_packaged_sources import WheelCorpusSources

        return WheelCorpusSources(self.settings.wheel_cache)

    def prepare_local_models(self, log: Callable[[str], None] | None = None) -> PreparedModels:
        """Loads MiniLM, converts SmolLM2 into the model cache and exports its perplexity graph to
        ONNX there (`scicustom models prepare`)."""
        from scicustom.adapters.packaged_models import prepare_packaged_models

        return prepare_packaged_models(self.settings.model_cache, log)

    @cached_property
    def corpus(self) -> CorpusRepository:
        return ParquetCorpusRepository(self.store)

    @staticmethod
    def corpus_at_home(home: Path) -> CorpusRepository:
        """The corpus of record of the embedded home at `home` (read by `corpus seed-embeddings`)."""
        store_dir = Settings(profile="local", home=home).store_dir
        if not store_dir.is_dir():
            raise PreconditionFailed(f"{home} holds no store ({store_dir} is missing)")
        return ParquetCorpusRepository(FilesystemObjectStore(store_dir))

    @cached_property
    def catalog(self) -> UnitCatalog:
        return UnitCatalog.from_file(self.settings.units_file, "units_file")

    @cached_property
    def embedder(self) -> Embedder:
        s = self.settings
        if s.embedder != "minilm":
            from scicustom.adapters.minilm_onnx_embedder import OnnxMiniLMEmbedder

            if s.embedder == "minilm-int8":
                return OnnxMiniLMEmbedder.int8(batch_size=s.embed_batch, threads=s.embed_threads)
            if s.embedder == "minilm-q8":
                return OnnxMiniLMEmbedder.q8(s.model_cache, threads=s.embed_threads)
            return OnnxMiniLMEmbedder.fp32(s.model_cache, batch_size=s.embed_batch, threads=s.embed_threads)
        from scicustom.adapters.minilm_embedder import MiniLMEmbedder

        return MiniLMEmbedder(batch_size=self.settings.embed_batch)

    @cached_property
    def perplexity(self) -> AnswerPerplexity:
        # ONNX Runtime on the exported graph, equal to the torch adapter (smollm_perplexity.py) to
        # ~1e-5 relative (benchmarks/bench_cold_build.py measures both). An embedded build asks for
        # it while assembling its world and scores after the jury, so it starts loading at once; a
        # cluster's stage workers assemble worlds too but only the selection stage scores: lazy there.
        from scicustom.adapters.onnx_perplexity import OnnxSmolLMPerplexity

        return OnnxSmolLMPerplexity(self.settings.model_cache, batch_size=self.settings.perplexity_batch,
                                    max_question_tokens=self.settings.perplexity_max_question_tokens,
                                    preload=not self.cluster)

    @cached_property
    def llm(self) -> LLM:
        return self.llm_at(self.settings.llm_api_base, revealed(self.settings.llm_api_key))

    def warm_up_llm_client(self) -> None:
        """Loads the LLM client library now (litellm: seconds of CPU) instead of in the first call."""
        from scicustom.adapters.litellm_llm import LiteLLMAdapter

        LiteLLMAdapter.warm_up()

    def llm_at(self, api_base: str | None, api_key: str | None, *, max_retries: int | None = None,
               requests_per_minute: int | None = None, timeout_s: float | None = None,
               backoff_s: float = 1.0) -> LLM:
        """An LLM client of its own (own rate limit) on the given OpenAI-compatible server (e.g.
        `ontology units --api-base`), over the one response cache; unset limits come from the settings."""
        from scicustom.adapters.litellm_llm import LiteLLMAdapter

        s = self.settings
        cache = LLMResponseCache(s.llm_cache_path / "responses.sqlite")
        return TracedLLM(LiteLLMAdapter(cache, max_retries=s.llm_max_retries if max_retries is None else max_retries,
                                        requests_per_minute=requests_per_minute or s.llm_requests_per_minute,
                                        timeout_s=timeout_s or s.llm_timeout_s, api_base=api_base, api_key=api_key,
                                        backoff_s=backoff_s))

    def provider_llm(self, provider: ProviderSpec) -> LLM:
        """`evaluate`: the client of one provider of a models file, shared by its models (one rate
        limit). A provider without its own server goes through the configured gateway, if any."""
        key = provider.api_key
        if provider.api_key_env is not None:
            key = os.environ.get(provider.api_key_env)
            if not key:
                raise InvalidInput(f"providers.{provider.name}.api_key_env",
                                   f"environment variable {provider.api_key_env} is not set")
        own_server = provider.api_base is not None
        return self.llm_at(provider.api_base if own_server else self.settings.llm_api_base,
                           key if own_server else key or revealed(self.settings.llm_api_key),
                           max_retries=provider.max_retries, requests_per_minute=provider.requests_per_minute,
                           timeout_s=provider.timeout_s,
                           backoff_s=1.0 if provider.backoff_s is None else provider.backoff_s)

    def local_mcq_answerer(self, spec: LocalModelSpec) -> MCQAnswerer:
        """`evaluate`: a local causal LM (a Hugging Face folder, or the packaged SmolLM2) answering by
        log-likelihood; the model loads on first use."""
        from scicustom.adapters.causal_lm_mcq_scorer import CausalLMMCQScorer, load_local_causal_lm

        def load() -> tuple[Any, Any]:
            if spec.path is not None:
                return load_local_causal_lm(Path(spec.path))
            from scicustom.adapters.packaged_models import load_smollm

            return load_smollm(self.settings.model_cache)

        identity = spec.model or str(Path(spec.path or "").resolve())
        return CausalLMMCQScorer(spec.name, identity, load, scoring=spec.scoring, batch_size=spec.batch_size,
                                 max_length=spec.max_length)

    @staticmethod
    def evaluation_outputs(directory: Path) -> EvaluationOutputs:
        """`evaluate`'s output folder: results, ranking, responses and the progress a rerun resumes from."""
        from scicustom.adapters.evaluation_files import EvaluationFolder

        return EvaluationFolder(directory)

    # The world a build runs in, assembled from the components above (embedded CLI, workers, jury).
    def build_world(self, requirement: Requirement, seed: int, jury: JuryOptions,
                    progress: Progress) -> tuple[BuildWorld, dict[str, Any]]:
        from scicustom.app.build.world import assemble_world

        return assemble_world(self, requirement, seed, jury, progress)

    def world_cache(self) -> WorldCache:
        """A cache of the last assembled world (one per servicer or worker process)."""
        from scicustom.app.build.world_cache import WorldCache

        return WorldCache(self.current_index, self.build_world)

    # The ontology store and the files, sources and caches the ontology use cases work with.
    @cached_property
    def ontology_workspace(self) -> OntologyWorkspace:
        return OntologyWorkspace(self.settings.home / "ontology")

    def ontology_store(self) -> OntologyStore:
        """A new connection to the ontology store; the caller closes it."""
        from scicustom.adapters.ontology_store import SqliteOntologyStore

        return SqliteOntologyStore(self.ontology_workspace.store_path)

    @cached_property
    def ontology_sources(self) -> OntologySources:
        from scicustom.adapters.ontology_obo_file import read_ontology_file
        from scicustom.adapters.ontology_package_cache import PackageCache
        from scicustom.adapters.ontology_packaged_sources import packaged_sources

        return OntologySources(packaged_sources(PackageCache(self.settings.cache_dir / "ontology")),
                               read_ontology_file)

    def label_vectors(self) -> LabelVectors:
        """Ontology label embeddings cached in the workspace; read anew on each call (it can be large)."""
        from scicustom.adapters.ontology_label_vectors import LabelVectorCache
        from scicustom.adapters.packaged_models import MINILM_NAME

        path = self.ontology_workspace.label_vectors
        # Vectors of one embedder only per file: the default keeps the name existing homes have.
        if self.embedder.name != MINILM_NAME:
            path = path.with_name(f"{path.stem}.{self.embedder.name}{path.suffix}")
        return LabelVectorCache(path, self.embedder)

    @cached_property
    def unit_set_blobs(self) -> BlobStore:
        from scicustom.adapters.content_addressed_store import ContentAddressedStore

        return ContentAddressedStore(self.store, UNIT_SETS_PREFIX)
