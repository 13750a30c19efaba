"""PaperService: paper uploads (client streaming, or an object key) into the paper stages; per-paper
state. Stateless: a paper's state is what the stages wrote beside it in the object store.
A caller gets, watches and lists only the papers its tenant submitted (app/papers/tenant_papers.py)."""

from __future__ import annotations

import time
from collections.abc import Iterator

import grpc

from scicustom.app.papers.paper_records import EXTRACTORS, PaperStatus, list_papers, paper_status
from scicustom.app.papers.submission import SubmitLimits, submit_paper_stream, submit_stored_object
from scicustom.app.papers.tenant_papers import TenantPapers
from scicustom.bootstrap import Context
from scicustom.core.errors import InvalidInput
from scicustom.grpc_server.authentication import current_tenant
from scicustom.grpc_server.server import ServiceBinding
from scicustom.papers.v1 import papers_pb2 as pb
from scicustom.papers.v1 import papers_pb2_grpc as pb_grpc
from scicustom.workers.paper_events import PaperSubmittedPublisher, RefusedPaperDeadLetters
from scicustom.workers.topics import Topics

SERVICE_NAME = "scicustom.papers.v1.PaperService"
STATES = {"submitted": pb.PAPER_STATE_SUBMITTED, "parsed": pb.PAPER_STATE_PARSED,
          "extracted": pb.PAPER_STATE_EXTRACTED, "indexed": pb.PAPER_STATE_INDEXED,
          "failed": pb.PAPER_STATE_FAILED, "superseded": pb.PAPER_STATE_SUPERSEDED}
_STATE_NAMES = {v: k for k, v in STATES.items()}


def paper_message(status: PaperStatus) -> pb.Paper:
    return pb.Paper(
        paper_id=status.paper_id, file_name=status.file_name, state=STATES[status.state], reason=status.reason,
        failed_stage=status.failed_stage, title=status.title, doi=status.doi, pmid=status.pmid,
        format=status.format, size_bytes=status.size_bytes, sha256=status.sha256,
        superseded_by=status.superseded_by, duplicate=status.duplicate,
        instances=[pb.InstanceCount(kind=k, count=v) for k, v in sorted(status.instances.items())],
        extractors=[pb.ExtractorStatus(extractor=e, status=status.extractors[e], rejected=status.rejected.get(e, 0))
                    for e in EXTRACTORS if e in status.extractors],
        batch_ids=status.batch_ids)


class PaperServicer(pb_grpc.PaperServiceServicer):
    def __init__(self, ctx: Context, watch_poll_s: float = 0.5) -> None:
        self.ctx = ctx
        self.topics = Topics(ctx.settings.topic_prefix)
        self.limits = SubmitLimits(ctx.settings.paper_max_bytes)
        self.watch_poll_s = watch_poll_s

    def _tenant_papers(self) -> TenantPapers:
        return TenantPapers(self.ctx.store, current_tenant())

    def SubmitPaper(self, request_iterator: Iterator[pb.SubmitPaperChunk],
                    context: grpc.ServicerContext) -> pb.Paper:
        papers = self._tenant_papers()
        status = self._submit(request_iterator, papers)
        papers.claim(status.paper_id, status.file_name)
        return paper_message(status)

    def _submit(self, request_iterator: Iterator[pb.SubmitPaperChunk],
                papers: TenantPapers) -> PaperStatus:
        first = next(request_iterator, None)
        if first is None:
            raise InvalidInput("file_name", "the upload sent no message")
        store, bus = self.ctx.store, self.ctx.event_bus
        announce = PaperSubmittedPublisher(store, bus, self.topics)
        dead_letter = RefusedPaperDeadLetters(bus, self.topics)
        if first.object_key:
            if first.data:
                raise InvalidInput("data", "give an object_key or data, not both")
            return submit_stored_object(store, announce, dead_letter, papers.check_object_key(first.object_key),
                                        self.limits)

        def chunks() -> Iterator[bytes]:
            yield first.data
            for message in request_iterator:
                yield message.data

        declared = first.size_bytes or None
        return submit_paper_stream(store, announce, dead_letter, first.file_name, chunks(), self.limits,
                                   declared_size=declared)

    def GetPaper(self, request: pb.GetPaperRequest, context: grpc.ServicerContext) -> pb.Paper:
        return paper_message(paper_status(self.ctx.store, self._tenant_papers().check_visible(request.paper_id)))

    def WatchPaper(self, request: pb.GetPaperRequest, context: grpc.ServicerContext) -> Iterator[pb.Paper]:
        paper_id = self._tenant_papers().check_visible(request.paper_id)
        last = None
        while context.is_active():
            status = paper_status(self.ctx.store, paper_id)
            message = paper_message(status)
            if message != last:
                yield message
                last = message
            if status.terminal:
                return
            time.sleep(self.watch_poll_s)

    def ListPapers(self, request: pb.ListPapersRequest, context: grpc.ServicerContext) -> pb.ListPapersResponse:
        state = _STATE_NAMES.get(request.state, "")
        papers = list_papers(self.ctx.store, state, request.limit or 1000, self._tenant_papers().visible_ids())
        return pb.ListPapersResponse(papers=[paper_message(s) for s in papers])


def binding(ctx: Context) -> ServiceBinding:
    servicer = PaperServicer(ctx)
    return ServiceBinding(SERVICE_NAME, lambda server: pb_grpc.add_PaperServiceServicer_to_server(servicer, server))
