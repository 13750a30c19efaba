"""PapersClient: submit papers to PaperService and follow them through parsing, extraction and
indexing. The bytes go up the SubmitPaper stream in 1 MiB chunks, so the caller holds no
object-store or Kafka credentials. Returns `PaperStatus` (app/papers/paper_records.py), the shape
the CLI renders on either profile.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path

from scicustom.app.papers.paper_records import PaperStatus
from scicustom.client.connection import ClientOptions, ServiceClient
from scicustom.client.rpc_errors import DeadlineExceededError, WaitTimeout
from scicustom.core.errors import InvalidInput
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


class PapersClient(ServiceClient):
    """PaperService at `address`. A paper is stored under its content hash (the same bytes again are
    the same paper), so a submission is retried on UNAVAILABLE like the reads, its file read anew."""

    SERVICE = "PaperService"

    def __init__(self, address: str, options: ClientOptions | None = None, *,
                 sleep: Callable[[float], None] = time.sleep) -> None:
        super().__init__(address, options, sleep=sleep)
        self._stub = pb_grpc.PaperServiceStub(self.channel)  # type: ignore[no-untyped-call]

    def submit(self, path: Path, *, timeout_s: float = SUBMIT_TIMEOUT_S) -> PaperStatus:
        """Uploads one file (PDF, JATS, TEI, MEDLINE, Markdown, HTML); its paper as stored."""
        path = Path(path)
        if not path.is_file():
            raise InvalidInput("path", f"{path} is not a file")
        return status_of(self._unary(self._stub.SubmitPaper, lambda: _chunks(path), idempotent=True,
                                     timeout_s=timeout_s))

    def get(self, paper_id: str, *, timeout_s: float | None = None) -> PaperStatus:
        return status_of(self._unary(self._stub.GetPaper, pb.GetPaperRequest(paper_id=paper_id), idempotent=True,
                                     timeout_s=timeout_s))

    def list(self, state: str = "", limit: int = 0, *, timeout_s: float | None = None) -> list[PaperStatus]:
        """Papers in id order; `state` one of submitted, parsed, extracted, indexed, failed, superseded
        ("" = every state); `limit` 0 = 1000."""
        name = f"PAPER_STATE_{state.upper()}" if state else "PAPER_STATE_UNSPECIFIED"
        if name not in pb.PaperState.keys():  # noqa: SIM118  (an EnumTypeWrapper, not a dict)
            raise InvalidInput("state", f"{state!r} is not a paper state")
        request = pb.ListPapersRequest(state=pb.PaperState.Value(name), limit=limit)
        response = self._unary(self._stub.ListPapers, request, idempotent=True, timeout_s=timeout_s)
        return [status_of(p) for p in response.papers]

    def watch(self, paper_id: str, *, timeout_s: float | None = None) -> Iterator[PaperStatus]:
        """The paper each time it changes, until it is terminal; DeadlineExceededError after `timeout_s`."""
        ends = None if timeout_s is None else time.monotonic() + timeout_s

        def open_stream() -> Iterator[pb.Paper]:
            remaining = None if ends is None else max(ends - time.monotonic(), 0.001)
            return self._stub.WatchPaper(pb.GetPaperRequest(paper_id=paper_id), timeout=remaining)  # type: ignore[no-any-return]

        for message in self._stream(open_stream, resumable=True):
            yield status_of(message)

    def wait(self, paper_id: str, timeout_s: float) -> PaperStatus:
        """The paper once terminal; WaitTimeout (with the last state seen) after `timeout_s`."""
        last = None
        try:
            for status in self.watch(paper_id, timeout_s=timeout_s):
                last = status
        except DeadlineExceededError:
            raise WaitTimeout(f"paper {paper_id} did not settle within {timeout_s} s", last) from None
        return last if last is not None else self.get(paper_id)
