"""The ports: Protocols the core needs from the outside world.

Embedded adapters (filesystem, in-process, scipy-sparse, local models) and cluster adapters
(MinIO, Kafka, Elasticsearch, KServe/Triton, litellm) implement the same Protocols, and one
contract suite per port runs against each.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

import numpy as np

from scicustom.core.build.candidates import Candidate
from scicustom.core.corpus_import import RawRecord
from scicustom.core.corpus_item import CorpusItem
from scicustom.core.ontology.dag import OntologyDAG, SourceInfo, SourceReport
from scicustom.core.progress import Progress
from scicustom.core.requirement import Requirement
from scicustom.core.tagger_training.artifact import TaggerArtifact
from scicustom.core.tagger_training.train_config import TrainConfig
from scicustom.core.tagger_training.vector_head import VectorHead
from scicustom.core.units import KnowledgeUnit


@runtime_checkable
class ObjectStore(Protocol):
    """Blob storage. Writes are atomic: a reader sees the old bytes or the new, never a mix."""

    def put_bytes(self, key: str, data: bytes) -> None: ...
    def get_bytes(self, key: str) -> bytes: ...  # KeyError when absent
    def exists(self, key: str) -> bool: ...
    def list_keys(self, prefix: str) -> list[str]: ...
    def delete(self, key: str) -> None: ...


@dataclass(frozen=True)
class Event:
    topic: str
    key: str
    payload: Mapping[str, Any]
    headers: Mapping[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class BusMessage:
    """One record as a consumer receives it. `value` is opaque bytes (a protobuf event, or JSON)."""

    topic: str
    partition: int
    offset: int
    key: str | None
    value: bytes
    headers: Mapping[str, str] = field(default_factory=dict)  # W3C `traceparent` travels here


class BusConsumer(Protocol):
    """A member of a consumer group: at-least-once delivery with explicit commits.

    The group's partitions are shared among its open members. `poll` returns the next records of
    this member's partitions; `commit` marks everything polled so far as handled (it first flushes
    what the bus published, so an event's successors are durable before it counts as done). What a
    member polled but did not commit is delivered again to the group after that member closes or
    loses the partition in a rebalance. A new group starts at the earliest retained record.
    """

    def poll(self, max_records: int = 100, timeout_s: float = 1.0) -> list[BusMessage]: ...
    def commit(self) -> None: ...
    def close(self) -> None: ...  # leaves the group without committing


class EventBus(Protocol):
    def publish(self, event: Event) -> None: ...  # payload as canonical JSON, via `send`
    def subscribe(self, topic: str, handler: Callable[[Event], None]) -> None: ...
    def ensure_topic(self, topic: str, partitions: int = 1) -> None: ...
    def partition_keys(self, topic: str) -> list[str]: ...  # per partition of `topic`, a key sent there
    def send(self, topic: str, value: bytes, *, key: str | None = None,
             headers: Mapping[str, str] | None = None) -> None: ...
    def flush(self) -> None: ...  # returns once everything sent is durable on the broker
    def consumer(self, group: str, topics: Sequence[str]) -> BusConsumer: ...
    def close(self) -> None: ...  # stops subscriptions, flushes, releases connections


class CorpusRepository(Protocol):
    """The QA corpus and what is derived per item: hardness scores, embeddings, tags per tagger.

    Whole-corpus writes replace; `*_shard` writes add one ingest batch's records beside them
    (a later shard wins for an id), so a batch is written once and never rewrites the corpus.
    """

    store: ObjectStore

    def save_items(self, items: Iterable[CorpusItem]) -> None: ...
    def save_item_shard(self, batch_id: str, items: Iterable[CorpusItem]) -> str: ...
    def remove_batch(self, batch_id: str) -> int:
        """Deletes every shard a batch wrote (items, tags, embeddings); returns how many."""
        ...
    def load_items(self) -> list[CorpusItem]: ...
    def import_state(self) -> dict[str, str]: ...
    def save_import_state(self, state: dict[str, str]) -> None: ...
    # Hardness (answer perplexity) per (item id, digest of its question and answer) under one model
    # version: a changed text or model misses. Writes add a shard and never replace one.
    def load_hardness(self, model: str) -> dict[tuple[str, str], float]: ...
    def add_hardness(self, model: str, scores: dict[tuple[str, str], float]) -> str: ...
    def load_embeddings(self, model: str) -> tuple[list[str], np.ndarray]: ...
    def add_embeddings(self, model: str, ids: Sequence[str], vectors: np.ndarray) -> None: ...
    def save_embeddings_shard(self, model: str, batch_id: str, ids: Sequence[str], vectors: np.ndarray) -> str: ...
    def tags_key(self, tagger_version: str) -> str: ...
    def load_tags(self, tagger_version: str) -> dict[str, list[tuple[str, float]]]: ...
    def save_tags(self, tagger_version: str, tags: dict[str, list[tuple[str, float]]]) -> None: ...
    def save_tags_shard(self, tagger_version: str, batch_id: str,
                        tags: dict[str, list[tuple[str, float]]]) -> str: ...
    # A digest of the text each item was tagged from, per tagger version (retagging is incremental).
    def load_text_digests(self, tagger_version: str) -> dict[str, str]: ...
    def save_text_digests(self, tagger_version: str, digests: dict[str, str]) -> None: ...


class Embedder(Protocol):
    """Sentence embeddings, L2-normalised rows, float32."""

    name: str

    def encode(self, texts: Sequence[str]) -> np.ndarray: ...


class AnswerPerplexity(Protocol):
    """Perplexity of an answer given its question under a causal LM (SciCustom eq. 1)."""

    name: str

    def perplexities(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray: ...


@dataclass(frozen=True)
class UnitScore:
    unit_id: str
    score: float


class Tagger(Protocol):
    """Maps texts to knowledge units, best first.

    `vectors`, when the caller holds them: the texts' rows from the platform's Embedder (the corpus's
    stored embeddings). A tagger that reads sentence vectors then skips encoding; others ignore them.
    """

    version: str

    def tag(self, texts: Sequence[str], vectors: np.ndarray | None = None) -> list[list[UnitScore]]: ...


class UnitIndex(Protocol):
    """Items x units membership, the retrieval structure of the online phase."""

    def item_ids(self) -> list[str]: ...
    def items_with_units(self, unit_ids: Sequence[str]) -> dict[str, list[str]]: ...
    def unit_counts(self) -> dict[str, int]: ...

    def ordered_candidates(self, voted_units: Sequence[str], consensus: Mapping[str, float], *,
                           limit: int | None = None, after: Candidate | None = None) -> list[Candidate]:
        """The paper's candidates in `core.candidates.order_candidates` order, exactly.

        `after` is the last candidate of the previous page (a cursor); `limit` caps the page.
        Repeated voted units count once; every voted unit needs a consensus rank.
        """
        ...


class VectorIndex(Protocol):
    """Exact nearest items by cosine similarity (the embedding baselines)."""

    def nearest(self, vector: np.ndarray, k: int) -> list[tuple[str, float]]:
        """Top `k` (item id, cosine), highest first; equal cosines in item id order."""
        ...


@dataclass(frozen=True)
class IndexedItem:
    """What the search index stores per corpus item."""

    id: str
    units: tuple[str, ...]
    text: str
    hardness: float | None  # None: not scored yet (ingestion leaves it to the builds that need it)
    quality: float
    embedding: np.ndarray


class SearchIndex(UnitIndex, VectorIndex, Protocol):
    """The retrieval service's index: units, text, intrinsic scores and embeddings per item."""

    def index_items(self, items: Sequence[IndexedItem]) -> int:
        """Insert or replace items by id (idempotent); searchable on return. Returns the count."""
        ...

    def delete_items(self, item_ids: Sequence[str]) -> int:
        """Remove items by id (ids not indexed are ignored); gone from every query on return.
        Returns how many were removed."""
        ...


@dataclass(frozen=True)
class Completion:
    text: str
    model: str
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    cached: bool = False


class LLM(Protocol):
    """Every LLM call of the platform goes through this one port (litellm behind it)."""

    def complete(
        self, model: str, messages: Sequence[Mapping[str, str]], **params: Any
    ) -> Completion: ...


class UnitRanker(Protocol):
    """A voting judge: ranks candidate units by relevance to a requirement, best first."""

    name: str
    kind: str  # "local" or "llm"

    def rank_units(self, requirement: Requirement, candidates: Sequence[KnowledgeUnit]) -> list[str]: ...


class RelevanceJudge(Protocol):
    """A cutoff judge: is this corpus item relevant to the requirement?"""

    name: str
    kind: str

    def is_relevant(self, requirement: Requirement, item: CorpusItem) -> bool: ...


class MCQWriter(Protocol):
    """Turns an item into the raw reply of the paper's MCQ transformation prompt."""

    name: str

    def write(self, requirement: Requirement, item: CorpusItem) -> str: ...


class OntologyStore(Protocol):
    """The imported ontology sources (one DAG each) with their import reports; one open
    connection, closed by whoever opened it."""

    def source_names(self) -> list[str]: ...
    def has_source(self, name: str) -> bool: ...
    def write_source(self, info: SourceInfo, dag: OntologyDAG, cycle_edges: Sequence[tuple[str, str]]) -> None: ...
    def report(self) -> list[SourceReport]: ...
    def load_dags(self, names: Sequence[str] | None = None) -> list[OntologyDAG]: ...
    def close(self) -> None: ...


class LabelVectors(Protocol):
    """Embeddings of (source, node id, label) triples, L2-normalised rows, each label encoded once."""

    def vectors(self, items: Sequence[tuple[str, str, str]]) -> np.ndarray: ...


@dataclass(frozen=True)
class CorpusSource:
    """A QA corpus that ships inside a registry package; `edition` changes whenever its records would."""

    name: str
    licence: str
    edition: str


class PackagedCorpus(Protocol):
    """The packaged QA corpora (DESIGN.md section 4), read offline from a package cache."""

    def sources(self) -> list[CorpusSource]: ...  # in import order
    def records(self, name: str) -> Iterator[RawRecord]: ...


class UnitIndexWriter(Protocol):
    """Builds the items x units index of one tagger's tags and stores it under `key`."""

    def write(self, key: str, tags: Mapping[str, Sequence[tuple[str, float]]], unit_ids: Sequence[str]) -> None: ...


class TaggerArtifacts(Protocol):
    """The trained tagger's versions (ONNX model, tokenizer, manifest) and which one is current.

    `version=None` means the current one; PreconditionFailed when there is none (or no manifest).
    """

    def save(self, onnx_model: bytes, tokenizer_json: bytes, unit_ids: list[str], unit_names: list[str],
             unit_domains: list[str], thresholds: np.ndarray, max_tokens: int, max_units: int,
             records: dict[str, Any], make_current: bool = True,
             head: VectorHead | None = None) -> TaggerArtifact: ...
    def save_records(self, artifact: TaggerArtifact) -> None: ...  # rewrites the manifest
    def directory(self, version: str | None = None) -> Path: ...
    def load(self, version: str | None = None) -> TaggerArtifact: ...
    def tagger(self, artifact: TaggerArtifact, threads: int | None = None,
               embedder: Embedder | None = None) -> Tagger: ...


@dataclass(frozen=True)
class TrainedNetworks:
    members: Sequence[Any]            # the trainer's own networks, handed back to `export_onnx`
    epoch_losses: list[list[float]]   # per member, the mean loss of each epoch
    validation_scores: np.ndarray     # validation texts x units: the ensemble's probabilities


class TaggerTrainer(Protocol):
    """Trains the tagger's networks on tokenised texts and exports the ensemble as one ONNX model."""

    max_tokens: int

    def tokenizer_json(self) -> bytes: ...
    def train(self, texts: Sequence[str], label_columns: Sequence[Sequence[int]], validation_texts: Sequence[str],
              n_units: int, config: TrainConfig, progress: Progress = ...) -> TrainedNetworks: ...
    def export_onnx(self, trained: TrainedNetworks) -> bytes: ...


class TaggerModelRepository(Protocol):
    """Writes the serving model repository (Triton) of one trained version to `out`, replacing it."""

    def write(self, artifact: TaggerArtifact, out: Path, max_batch: int) -> Path: ...
