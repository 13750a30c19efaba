"""The ingestion stages as Kafka worker handlers (`scicustom worker tag index`), and the
items-imported event that starts them.

tag:   items-imported -> embed + tag the batch -> items-tagged (tagger_version set); the worker
       reads the vectors stored under its embedder once and embeds only items without one
index: items-tagged -> quality score, search index, corpus shards -> items-indexed (hardness is
       scored lazily by the builds that need it)

Idempotent on the batch id: a stage whose output exists only announces it again (same event id,
equal bytes). A batch that cannot be read (missing, altered, not UTF-8, wrong body) is a
PoisonEvent and goes to the dead-letter topic; bad records inside a readable batch are skipped and
counted in its report (app/ingest/batch_stages.py).
"""

from __future__ import annotations

from dataclasses import dataclass

from scicustom.app.ingest.batch_stages import StepOutcome, index_batch, tag_batch
from scicustom.app.ingest.item_batches import BatchKeys, WrittenBatch, clear_failure, is_batch_id, record_failure
from scicustom.app.ingest.item_embeddings import StoredEmbeddings
from scicustom.bootstrap import Context
from scicustom.core.errors import UnreadableBatch
from scicustom.events.v1 import events_pb2 as ev
from scicustom.ports import EventBus, ObjectStore
from scicustom.workers.envelopes import PoisonEvent, envelope, get_artifact, publish, ref_of
from scicustom.workers.stage_consumer import Outgoing
from scicustom.workers.topics import INGEST_STAGES, ITEMS_IMPORTED, Topics, published_type


@dataclass(frozen=True)
class ItemsImportedPublisher:
    """Announces a stored batch on items-imported (trace context in the headers) and waits until it
    is durable: the `announce` of the batch-submission use cases."""

    store: ObjectStore
    bus: EventBus
    topics: Topics

    def __call__(self, batch: WrittenBatch, source: str) -> None:
        body = ev.ItemsBatch(items=ref_of(self.store, BatchKeys(batch.batch_id).imported), count=batch.count,
                             source=source)
        publish(self.bus, self.topics.of(ITEMS_IMPORTED), batch.batch_id,
                envelope(ITEMS_IMPORTED, batch_id=batch.batch_id, items_batch=body))
        self.bus.flush()


class IngestStageHandler:
    def __init__(self, stage: str, ctx: Context, topics: Topics) -> None:
        if stage not in INGEST_STAGES:
            raise ValueError(f"{stage!r} is not an ingestion stage")
        self.stage = stage
        self.ctx = ctx
        self.topics = topics
        self._stored: StoredEmbeddings | None = None

    def stored_embeddings(self) -> StoredEmbeddings | None:
        """The tag stage's snapshot of the stored vectors (read on the first batch), unless the
        settings turn reuse off."""
        if not self.ctx.settings.ingest_reuse_embeddings:
            return None
        if self._stored is None:
            self._stored = StoredEmbeddings(self.ctx.corpus, self.ctx.embedder)
        return self._stored

    def _batch(self, event: ev.Envelope) -> ev.ItemsBatch:
        if event.WhichOneof("body") != "items_batch":
            raise PoisonEvent(f"a {self.stage} worker cannot handle a {event.WhichOneof('body')} event")
        if not is_batch_id(event.batch_id):
            raise PoisonEvent(f"batch id {event.batch_id!r} is not 32 lowercase hex digits")
        keys = BatchKeys(event.batch_id)
        expected = keys.imported if self.stage == "tag" else keys.tagged
        if event.items_batch.items.key != expected:
            raise PoisonEvent(f"batch {event.batch_id} refers to {event.items_batch.items.key!r}, not {expected!r}")
        if self.stage == "index" and not event.items_batch.tagger_version:
            raise PoisonEvent(f"items-tagged event of batch {event.batch_id} without a tagger version")
        return event.items_batch

    def _run(self, event: ev.Envelope, batch: ev.ItemsBatch, data: bytes) -> StepOutcome:
        ctx = self.ctx
        try:
            if self.stage == "tag":
                return tag_batch(ctx.store, event.batch_id, data, batch.source, ctx.embedder, ctx.tagger, ctx.catalog,
                                 self.stored_embeddings())
            return index_batch(ctx.store, ctx.corpus, event.batch_id, data, batch.tagger_version, ctx.search_index,
                               ctx.settings.elasticsearch_index)
        except UnreadableBatch as exc:
            raise PoisonEvent(str(exc)) from None

    def handle(self, event: ev.Envelope) -> list[Outgoing]:
        batch = self._batch(event)
        store = self.ctx.store
        data = get_artifact(store, batch.items)  # PoisonEvent when missing or altered
        outcome = self._run(event, batch, data)
        clear_failure(store, event.batch_id, self.stage)
        # Both events point at the tagged items: the index stage passes on the reference it verified.
        tagged = ref_of(store, BatchKeys(event.batch_id).tagged) if self.stage == "tag" else batch.items
        body = ev.ItemsBatch(items=tagged, count=outcome.count, source=batch.source,
                             tagger_version=outcome.tagger_version)
        kind = published_type(self.stage)
        return [Outgoing(self.topics.of(kind), event.batch_id, envelope(kind, batch_id=event.batch_id,
                                                                        items_batch=body))]

    def on_dead_letter(self, event: ev.Envelope, error: str) -> list[Outgoing]:
        """Records the failure beside the batch (GetBatch reports it); ingestion has no failure topic."""
        record_failure(self.ctx.store, event.batch_id, self.stage, error)
        return []


def stage_handlers(ctx: Context, stages: list[str], topics: Topics) -> list[IngestStageHandler]:
    """The handlers `scicustom worker` runs for these ingestion stages."""
    return [IngestStageHandler(stage, ctx, topics) for stage in stages]
