"""The ingestion stages as Kafka worker handlers (`scicustom worker tag index`).

tag:   items-imported -> embed + tag the batch -> items-tagged (tagger_version set)
index: items-tagged -> intrinsic scores, search index, corpus shards -> items-indexed

Idempotent on the batch id: a stage whose output exists only announces it again (same event id,
equal bytes). A batch that cannot be read (missing, altered, not UTF-8, wrong body) is a
PoisonEvent and goes to the dead-letter topic; bad records inside a readable batch are skipped and
counted in its report (batch_stages.py).
"""

from __future__ import annotations

from scicustom.bootstrap import Context
from scicustom.events.v1 import events_pb2 as ev
from scicustom.ingest.batch_stages import StepOutcome, index_batch, tag_batch
from scicustom.ingest.item_batches import BatchKeys, is_batch_id
from scicustom.workers.envelopes import PoisonEvent, canonical_bytes, envelope, get_artifact, ref_of
from scicustom.workers.stage_consumer import Outgoing
from scicustom.workers.topics import INGEST_STAGES, Topics, published_type


class IngestStageHandler:
    def __init__(self, stage: str, ctx: Context, topics: Topics) -> None:
        if stage not in INGEST_STAGES:
            raise ValueError(f"{stage!r} is not an ingestion stage")
        self.stage = stage
        self.ctx = ctx
        self.topics = topics

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

    def handle(self, event: ev.Envelope) -> list[Outgoing]:
        batch = self._batch(event)
        store = self.ctx.store
        data = get_artifact(store, batch.items)  # PoisonEvent when missing or altered
        outcome: StepOutcome
        if self.stage == "tag":
            outcome = tag_batch(store, event.batch_id, data, batch.source, self.ctx.embedder, self.ctx.tagger,
                                self.ctx.catalog)
        else:
            outcome = index_batch(store, self.ctx.corpus, event.batch_id, data, batch.tagger_version,
                                  self.ctx.perplexity, self.ctx.search_index, self.ctx.settings.elasticsearch_index)
        keys = BatchKeys(event.batch_id)
        if store.exists(keys.failed(self.stage)):
            store.delete(keys.failed(self.stage))  # an earlier delivery gave up; this one got through
        # Both events point at the tagged items: the index stage passes on the reference it verified.
        tagged = ref_of(store, keys.tagged) if self.stage == "tag" else batch.items
        body = ev.ItemsBatch(items=tagged, count=outcome.count, source=batch.source,
                             tagger_version=outcome.tagger_version)
        kind = published_type(self.stage)
        return [Outgoing(self.topics.of(kind), event.batch_id, envelope(kind, batch_id=event.batch_id,
                                                                        items_batch=body))]

    def on_dead_letter(self, event: ev.Envelope, error: str) -> list[Outgoing]:
        """Records the failure beside the batch (GetBatch reports it); ingestion has no failure topic."""
        if is_batch_id(event.batch_id) and self.ctx.store.exists(BatchKeys(event.batch_id).imported):
            self.ctx.store.put_bytes(BatchKeys(event.batch_id).failed(self.stage),
                                     canonical_bytes({"stage": self.stage, "error": error}))
        return []
