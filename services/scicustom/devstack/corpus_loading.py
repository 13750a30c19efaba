"""Load the packaged corpus into a running dev cluster through the product's own path: ImportCorpus
on IngestService stores the batches and announces them on items-imported; the tag worker embeds
(reusing stored vectors) and tags them, the index worker indexes them into Elasticsearch and the
corpus of record. This follows the batches with GetBatch and says how far the load is."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Protocol

import grpc

from scicustom.core.errors import PreconditionFailed
from scicustom.ingest.v1 import ingest_pb2 as pb
from scicustom.ingest.v1 import ingest_pb2_grpc as pb_grpc

POLL_S = 3.0
QUIET_S = 15.0  # a line at least this often, even when nothing changed
IMPORT_TIMEOUT_S = 600.0  # ImportCorpus reads, stores and announces the whole packaged corpus
_STATE = {pb.BATCH_STATE_IMPORTED: "imported", pb.BATCH_STATE_TAGGED: "tagged", pb.BATCH_STATE_INDEXED: "indexed",
          pb.BATCH_STATE_FAILED: "failed"}


@dataclass(frozen=True)
class ImportedBatch:
    batch_id: str
    source: str
    count: int


@dataclass(frozen=True)
class BatchStatus:
    batch_id: str
    state: str            # imported, tagged, indexed, failed
    count: int            # items imported
    indexed: int          # items indexed (once indexed)
    tagger_version: str
    error: str


class IngestCalls(Protocol):
    def import_corpus(self, limit_per_source: int) -> list[ImportedBatch]: ...
    def get(self, batch_id: str) -> BatchStatus: ...


class GrpcIngest:
    """IngestService on a dev cluster's loopback port, with its bearer token."""

    def __init__(self, address: str, token: str) -> None:
        self._channel = grpc.insecure_channel(address)
        self._stub = pb_grpc.IngestServiceStub(self._channel)  # type: ignore[no-untyped-call]
        self._metadata = [("authorization", f"Bearer {token}")]

    def import_corpus(self, limit_per_source: int) -> list[ImportedBatch]:
        response = self._stub.ImportCorpus(pb.ImportCorpusRequest(limit_per_source=limit_per_source),
                                           metadata=self._metadata, timeout=IMPORT_TIMEOUT_S)
        return [ImportedBatch(b.batch_id, b.source, b.count) for b in response.batches]

    def get(self, batch_id: str) -> BatchStatus:
        m = self._stub.GetBatch(pb.GetBatchRequest(batch_id=batch_id), metadata=self._metadata, timeout=30.0)
        return BatchStatus(m.batch_id, _STATE.get(m.state, "unknown"), m.count, m.indexed, m.tagger_version, m.error)

    def close(self) -> None:
        self._channel.close()


@dataclass
class LoadReport:
    batches: int
    items: int                         # items imported
    indexed: int                       # items indexed
    import_s: float                    # ImportCorpus: read, store and announce
    pipeline_s: float                  # from the first announcement to the last batch indexed
    failed: dict[str, str] = field(default_factory=dict)  # batch id -> error
    tagger_versions: set[str] = field(default_factory=set)

    @property
    def items_per_s(self) -> float:
        return self.indexed / max(self.pipeline_s, 1e-9)


def _duration(seconds: float) -> str:
    s = round(seconds)
    return f"{s // 60}m{s % 60:02d}s" if s >= 60 else f"{s}s"


def progress_line(elapsed_s: float, statuses: dict[str, BatchStatus], items_total: int) -> str:
    """One terminal line: batches tagged and indexed, items indexed, the rate so far and the ETA."""
    total = len(statuses)
    indexed_batches = [s for s in statuses.values() if s.state == "indexed"]
    tagged = sum(1 for s in statuses.values() if s.state in ("tagged", "indexed"))
    failed = sum(1 for s in statuses.values() if s.state == "failed")
    items_done = sum(s.count for s in indexed_batches)
    rate = items_done / elapsed_s if elapsed_s > 0 else 0.0
    left = items_total - items_done - sum(s.count for s in statuses.values() if s.state == "failed")
    eta = _duration(left / rate) if rate > 0 and left > 0 else ("0s" if left <= 0 else "?")
    line = (f"[{_duration(elapsed_s):>6}] indexed {len(indexed_batches)}/{total} batches, "
            f"{items_done:,}/{items_total:,} items; tagged {tagged}/{total}; {rate:.0f} items/s; ETA {eta}")
    return line + (f"; {failed} FAILED" if failed else "")


def load_packaged_corpus(client: IngestCalls, limit_per_source: int, say: Callable[[str], None], *,
                         timeout_s: float = 3600.0, poll_s: float = POLL_S,
                         clock: Callable[[], float] = time.monotonic,
                         sleep: Callable[[float], None] = time.sleep) -> LoadReport:
    """ImportCorpus (0 = every item), then GetBatch until every batch is indexed or failed."""
    started = clock()
    batches = client.import_corpus(limit_per_source)
    imported = clock()
    items = sum(b.count for b in batches)
    say(f"imported {items:,} items in {len(batches)} batches ({_duration(imported - started)}); "
        "tag worker -> index worker ...")
    statuses = {b.batch_id: BatchStatus(b.batch_id, "imported", b.count, 0, "", "") for b in batches}
    last_counts: tuple[int, ...] = ()
    last_said = imported
    while True:
        for batch_id, known in statuses.items():
            if known.state not in ("indexed", "failed"):
                statuses[batch_id] = client.get(batch_id)
        now = clock()
        done = all(s.state in ("indexed", "failed") for s in statuses.values())
        line = progress_line(now - imported, statuses, items)
        counts = tuple(sum(1 for s in statuses.values() if s.state == state)
                       for state in ("tagged", "indexed", "failed"))
        if done or counts != last_counts or now - last_said >= QUIET_S:
            say(line)
            last_counts, last_said = counts, now
        if done:
            break
        if now - imported > timeout_s:
            raise PreconditionFailed(f"the corpus load did not finish in {_duration(timeout_s)}: {line}")
        sleep(poll_s)
    finished = clock()
    return LoadReport(len(batches), items, sum(s.indexed for s in statuses.values()), imported - started,
                      finished - imported, {s.batch_id: s.error for s in statuses.values() if s.state == "failed"},
                      {s.tagger_version for s in statuses.values() if s.tagger_version})
