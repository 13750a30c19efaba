"""`scicustom papers submit` against a remote PaperService (`SCICUSTOM_PAPER_SERVICE_ADDRESS`): the
bytes go up the SubmitPaper stream in 1 MiB chunks, so the caller holds no object-store or Kafka
credentials; `--wait` follows each paper with WatchPaper until it is terminal."""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import grpc

from scicustom.app.papers.paper_records import PaperStatus
from scicustom.client.rpc_errors import call_error
from scicustom.papers.v1 import papers_pb2 as pb
from scicustom.papers.v1 import papers_pb2_grpc as pb_grpc

CHUNK_BYTES = 1024 * 1024  # the service takes up to 1 MiB per message
SUBMIT_TIMEOUT_S = 600.0


def status_of(message: pb.Paper) -> PaperStatus:
    """The paper as the CLI renders it (the same shape as on the embedded profile)."""
    return PaperStatus(
        paper_id=message.paper_id, file_name=message.file_name,
        state=pb.PaperState.Name(message.state).removeprefix("PAPER_STATE_").lower(),
        reason=message.reason, failed_stage=message.failed_stage, title=message.title, doi=message.doi,
        pmid=message.pmid, format=message.format, size_bytes=message.size_bytes, sha256=message.sha256,
        superseded_by=message.superseded_by, duplicate=message.duplicate,
        instances={c.kind: c.count for c in message.instances},
        rejected={e.extractor: e.rejected for e in message.extractors},
        extractors={e.extractor: e.status for e in message.extractors}, batch_ids=list(message.batch_ids))


def _chunks(path: Path) -> Iterator[pb.SubmitPaperChunk]:
    yield pb.SubmitPaperChunk(file_name=path.name, size_bytes=path.stat().st_size)
    with path.open("rb") as handle:
        while data := handle.read(CHUNK_BYTES):
            yield pb.SubmitPaperChunk(data=data)


def submit_remote(address: str, paths: Sequence[Path], wait: bool, timeout_s: float) -> list[PaperStatus]:
    """Each file's paper after submission, or after it settled when `wait` (until `timeout_s`)."""
    with grpc.insecure_channel(address) as channel:
        stub = pb_grpc.PaperServiceStub(channel)
        try:
            papers = [stub.SubmitPaper(_chunks(path), timeout=SUBMIT_TIMEOUT_S) for path in paths]
            if wait:
                deadline = time.monotonic() + timeout_s
                papers = [_settled(stub, paper, deadline) for paper in papers]
        except grpc.RpcError as exc:
            raise call_error(exc, "PaperService", address) from None
    return [status_of(p) for p in papers]


def _settled(stub: pb_grpc.PaperServiceStub, paper: pb.Paper, deadline: float) -> pb.Paper:
    last = paper
    remaining = deadline - time.monotonic()
    if remaining <= 0:
        return last
    try:
        for update in stub.WatchPaper(pb.GetPaperRequest(paper_id=paper.paper_id), timeout=remaining):
            last = update
    except grpc.RpcError as exc:
        if exc.code() != grpc.StatusCode.DEADLINE_EXCEEDED:  # out of time: report where it got to
            raise
    last.duplicate = paper.duplicate
    return last
