"""The paper stages as Kafka worker handlers (`scicustom worker parse extract-qa extract-recipes
extract-hypotheses`); workers/paper_events.py announces paper.submitted, which starts them.

parse:               paper.submitted -> parse the stored bytes -> paper.parsed (the parsed document)
extract-qa:          paper.parsed -> grounded QA items -> paper.extracted-qa, and the items' batch on
                     ingest.items-imported (the tag and index stages take it from there)
extract-recipes:     paper.parsed -> AlchemyBench recipes (LLM) -> paper.extracted-recipes
extract-hypotheses:  paper.parsed -> Matter-to-Mechanism instances (LLM) -> paper.extracted-hypotheses

Idempotent on the paper id: a stage whose output exists publishes the same event again. A paper
that cannot be read is a PoisonEvent: dead-lettered at once and FAILED with the reason.
"""

from __future__ import annotations

from functools import cached_property

from scicustom.app.ingest.item_batches import BatchKeys
from scicustom.app.papers.llm_extractors import LLM_QA_SOURCE, LLMExtractors
from scicustom.app.papers.paper_records import PaperKeys, check_paper_id, record_failure
from scicustom.app.papers.paper_stages import (
    Extracted,
    PaperRejected,
    definition_vocabulary,
    extract_qa_offline,
    extract_with,
    parse_stored,
    record_needs_llm,
)
from scicustom.app.papers.withdrawal import withdraw_paper
from scicustom.bootstrap import Context
from scicustom.core.errors import InvalidInput
from scicustom.core.papers.initialisms import InitialismIndex
from scicustom.events.v1 import events_pb2 as ev
from scicustom.workers.envelopes import PoisonEvent, envelope, get_artifact, ref_of
from scicustom.workers.stage_consumer import Outgoing
from scicustom.workers.topics import ITEMS_IMPORTED, PAPER_STAGES, Topics, published_type


class PaperStageHandler:
    def __init__(self, stage: str, ctx: Context, topics: Topics) -> None:
        if stage not in PAPER_STAGES:
            raise ValueError(f"{stage!r} is not a paper stage")
        self.stage = stage
        self.ctx = ctx
        self.topics = topics

    @cached_property
    def _vocabulary(self) -> InitialismIndex:
        return definition_vocabulary(self.ctx.catalog)

    def _extractors(self) -> LLMExtractors | None:
        model = self.ctx.settings.paper_llm_model
        return LLMExtractors(self.ctx.llm, model) if model else None

    def _extract(self, paper_id: str) -> Extracted:
        store, llm = self.ctx.store, self._extractors()
        if self.stage == "extract-qa":
            if llm is None:
                return extract_qa_offline(store, paper_id, vocabulary=self._vocabulary)
            return extract_with(store, paper_id, "qa", llm.qa, LLM_QA_SOURCE)
        extractor = self.stage.removeprefix("extract-")
        if llm is None:
            return record_needs_llm(store, paper_id, extractor)
        return extract_with(store, paper_id, extractor, llm.recipes if extractor == "recipes" else llm.hypotheses,
                            "")

    def handle(self, event: ev.Envelope) -> list[Outgoing]:
        if event.WhichOneof("body") != "paper":
            raise PoisonEvent(f"a {self.stage} worker cannot handle a {event.WhichOneof('body')} event")
        try:
            paper_id = check_paper_id(event.batch_id)
        except InvalidInput as exc:
            raise PoisonEvent(str(exc)) from None
        store = self.ctx.store
        get_artifact(store, event.paper.artifact)  # PoisonEvent when missing or altered
        kind = published_type(self.stage)
        try:
            if self.stage == "parse":
                parsed = parse_stored(store, paper_id)
                if parsed.superseded:  # the earlier version's instances leave the corpus and the index
                    withdraw_paper(store, self.ctx.corpus, lambda: self.ctx.search_index, parsed.superseded)
                body = ev.PaperEvent(artifact=ref_of(store, PaperKeys(paper_id).parsed),
                                     file_name=event.paper.file_name, superseded=parsed.superseded)
                return [Outgoing(self.topics.of(kind), paper_id, envelope(kind, batch_id=paper_id, paper=body))]
            extracted = self._extract(paper_id)
        except PaperRejected as exc:
            raise PoisonEvent(str(exc)) from None
        keys = PaperKeys(paper_id)
        body = ev.PaperEvent(artifact=ref_of(store, keys.instances(extracted.extractor)),
                             file_name=event.paper.file_name, extractor=extracted.extractor,
                             status=extracted.status, instances=extracted.instances, rejected=extracted.rejected)
        out = [Outgoing(self.topics.of(kind), paper_id, envelope(kind, batch_id=paper_id, paper=body))]
        if extracted.batch is not None:
            batch = extracted.batch
            items = ev.ItemsBatch(items=ref_of(store, BatchKeys(batch.batch_id).imported), count=batch.count,
                                  source=extracted.source)
            out.append(Outgoing(self.topics.of(ITEMS_IMPORTED), batch.batch_id,
                                envelope(ITEMS_IMPORTED, batch_id=batch.batch_id, items_batch=items)))
        return out

    def on_dead_letter(self, event: ev.Envelope, error: str) -> list[Outgoing]:
        """FAILED with the reason beside the paper (GetPaper reports it); the record is on the DLQ."""
        try:
            paper_id = check_paper_id(event.batch_id)
        except InvalidInput:
            return []
        record_failure(self.ctx.store, paper_id, self.stage, error)
        return []


def stage_handlers(ctx: Context, stages: list[str], topics: Topics) -> list[PaperStageHandler]:
    """The handlers `scicustom worker` runs for these paper stages."""
    return [PaperStageHandler(stage, ctx, topics) for stage in stages]
