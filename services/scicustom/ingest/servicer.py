"""IngestService: papers' items and packaged sources into batches on items-imported; batch state.

Stateless like BuildService: a batch's state is what the workers wrote beside it in the store.
"""

from __future__ import annotations

import grpc

from scicustom.app.ingest.batch_submission import Paper, PaperItem, import_packaged_batches, submit_paper
from scicustom.app.ingest.item_batches import BatchState, WrittenBatch, get_batch
from scicustom.bootstrap import Context
from scicustom.grpc_server.server import ServiceBinding
from scicustom.ingest.v1 import ingest_pb2 as pb
from scicustom.ingest.v1 import ingest_pb2_grpc as pb_grpc
from scicustom.ingest.worker import ItemsImportedPublisher
from scicustom.workers.topics import Topics

SERVICE_NAME = "scicustom.ingest.v1.IngestService"
_STATES = {"imported": pb.BATCH_STATE_IMPORTED, "tagged": pb.BATCH_STATE_TAGGED,
           "indexed": pb.BATCH_STATE_INDEXED, "failed": pb.BATCH_STATE_FAILED}


def paper_from_request(request: pb.SubmitPaperRequest) -> Paper:
    return Paper(request.paper_id, request.title, request.licence, tuple(
        PaperItem(item.question, item.answer, tuple(item.options),
                  item.answer_index if item.HasField("answer_index") else None)
        for item in request.items))


def batch_message(state: BatchState) -> pb.Batch:
    message = pb.Batch(batch_id=state.batch_id, state=_STATES[state.state], source=str(state.meta.get("source", "")),
                       origin=str(state.meta.get("origin", "")), count=int(state.meta.get("count", 0)))
    if state.tag_report is not None:
        message.tagger_version = str(state.tag_report["tagger_version"])
        message.tagged = int(state.tag_report["tagged"])
    if state.report is not None:
        message.indexed = int(state.report["indexed"])
        message.index = str(state.report["index"])
        for stage_reason, count in state.report["skipped"].items():
            stage, _, reason = stage_reason.partition(": ")
            message.skipped.append(pb.SkippedRecords(stage=stage, reason=reason, count=int(count)))
    elif state.tag_report is not None:
        message.skipped.extend(pb.SkippedRecords(stage="tag", reason=reason, count=int(count))
                               for reason, count in state.tag_report["skipped"].items())
    if state.failure is not None:
        message.error = str(state.failure["error"])
        message.failed_stage = str(state.failure["stage"])
    return message


class IngestServicer(pb_grpc.IngestServiceServicer):
    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self.topics = Topics(ctx.settings.topic_prefix)

    def _announce(self, batch: WrittenBatch, source: str) -> None:
        # The bus is reached only once a batch is stored: a bad request never needs Kafka.
        ItemsImportedPublisher(self.ctx.store, self.ctx.event_bus, self.topics)(batch, source)

    def SubmitPaper(self, request: pb.SubmitPaperRequest, context: grpc.ServicerContext) -> pb.SubmitPaperResponse:
        batch, item_ids = submit_paper(self.ctx.store, self._announce, paper_from_request(request))
        return pb.SubmitPaperResponse(batch_id=batch.batch_id, item_ids=item_ids, count=batch.count)

    def ImportCorpus(self, request: pb.ImportCorpusRequest,
                     context: grpc.ServicerContext) -> pb.ImportCorpusResponse:
        read, written = import_packaged_batches(self.ctx.store, self._announce, self.ctx.packaged_corpus,
                                                list(request.sources), request.limit_per_source)
        return pb.ImportCorpusResponse(
            batches=[pb.BatchSummary(batch_id=b.batch_id, source=source, count=b.count) for source, b in written],
            sources=[pb.ImportedSource(source=s.source, read=s.report.read, imported=s.report.imported,
                                       duplicates=s.report.duplicates, skipped=sum(s.report.skipped.values()))
                     for s in read])

    def GetBatch(self, request: pb.GetBatchRequest, context: grpc.ServicerContext) -> pb.Batch:
        return batch_message(get_batch(self.ctx.store, request.batch_id))


def binding(ctx: Context) -> ServiceBinding:
    servicer = IngestServicer(ctx)
    return ServiceBinding(SERVICE_NAME, lambda server: pb_grpc.add_IngestServiceServicer_to_server(servicer, server))
