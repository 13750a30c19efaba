"""A home where every stage has already run once, for fuzzing the stage workers' input.

One paper went parse -> extract-* -> tag -> index (standing counted its batch), one build went
through the six build stages on the synthetic world (standing-notify saw it complete), one build is
queued and one cancelled. The records each stage consumed are kept: the fuzz mutates them, so
generated events name real builds, batches, papers and artifacts and reach the handlers' deep paths.
"""

from __future__ import annotations

import hashlib
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scicustom.adapters.filesystem_store import FilesystemObjectStore
from scicustom.app.build.build_records import BUILD_STAGES, BuildRecords
from scicustom.app.ingest.batch_submission import Paper, PaperItem, submit_paper
from scicustom.app.ingest.item_batches import batch_state
from scicustom.app.papers.paper_records import paper_status
from scicustom.app.papers.submission import submit_paper_bytes
from scicustom.bootstrap import Context
from scicustom.builds.servicer import BuildServicer
from scicustom.builds.standing_worker import StandingCountHandler, StandingNotifyHandler
from scicustom.builds.v1 import builds_pb2 as pb
from scicustom.builds.worker import BuildStageHandler
from scicustom.ingest.worker import IngestStageHandler, ItemsImportedPublisher
from scicustom.papers.worker import PaperStageHandler
from scicustom.ports import BusConsumer, BusMessage
from scicustom.workers.in_process import run_until
from scicustom.workers.paper_events import PaperSubmittedPublisher, RefusedPaperDeadLetters
from scicustom.workers.stage_consumer import StageHandler
from scicustom.workers.topics import INGEST_STAGES, PAPER_STAGES, STANDING_STAGES, Topics
from tests.unit.ingest_pipeline.conftest import PREFIX, make_context, records
from tests.unit.workers.conftest import TEXT, SyntheticWorlds

STAGES = (*BUILD_STAGES, *STANDING_STAGES, *INGEST_STAGES, *PAPER_STAGES)
PAPER = (b"# Capsid assembly of icosahedral viruses\n\n## Introduction\n\n"
         b"A capsid is the protein shell of a virus that encloses its genetic material. "
         b"The capsid protects the viral genome from nucleases. Capsomeres are the subunits of a capsid. "
         b"Icosahedral capsids are built from 60 identical subunits in the simplest case.\n\n"
         b"## Results\n\nAssembly of the capsid proceeds through nucleation and elongation. "
         b"Scaffolding proteins guide the assembly of large capsids.\n")


@dataclass
class Snapshot:
    """What no record may change: the finished build, batch and paper, and their bytes."""

    build_state: str
    batch_state: str
    paper_state: str
    output: dict[str, int] = field(default_factory=dict)  # key -> CRC-32 of its bytes


@dataclass
class EventWorld:
    ctx: Context
    topics: Topics
    handlers: dict[str, StageHandler]
    consumed: dict[str, list[BusMessage]]
    build_id: str
    batch_id: str
    paper_id: str
    ids: dict[str, list[str]]
    readers: dict[str, BusConsumer] = field(default_factory=dict)

    def __repr__(self) -> str:  # a failing example prints its arguments: keep this one short
        return "EventWorld(...)"

    def snapshot(self) -> Snapshot:
        store = FilesystemObjectStore(self.ctx.settings.store_dir)  # the same files, without the spans
        records = BuildRecords(store, self.build_id)
        output = {key: zlib.crc32(store.get_bytes(key)) for key in store.list_keys(f"{records.root}output/")}
        batch = batch_state(store, self.batch_id)
        return Snapshot(records.state().state, batch.state if batch else "missing",
                        paper_status(store, self.paper_id).state, output)


def _handlers(ctx: Context, topics: Topics) -> dict[str, StageHandler]:
    worlds = SyntheticWorlds()
    handlers: dict[str, StageHandler] = {s: BuildStageHandler(s, ctx, topics, worlds) for s in BUILD_STAGES}
    handlers["standing"] = StandingCountHandler(ctx, topics)
    handlers["standing-notify"] = StandingNotifyHandler(ctx, topics)
    handlers.update({s: IngestStageHandler(s, ctx, topics) for s in INGEST_STAGES})
    handlers.update({s: PaperStageHandler(s, ctx, topics) for s in PAPER_STAGES})
    return handlers


def _create_build(ctx: Context, **fields: Any) -> str:
    request = pb.CreateBuildRequest(**{"requirement_text": TEXT, "k1": 2, "k2": 20, "proxy_samples": 10, "seed": 1,
                                       "relevance_quantile": 0.75, **fields})
    return str(BuildServicer(ctx).CreateBuild(request, None).build_id)


def event_world(home: Path) -> EventWorld:
    ctx = make_context(home)
    topics = Topics(PREFIX)
    handlers = _handlers(ctx, topics)
    store, bus = ctx.store, ctx.event_bus
    paper = submit_paper_bytes(store, PaperSubmittedPublisher(store, bus, topics), RefusedPaperDeadLetters(bus, topics),
                               "capsid.md", PAPER)
    batch, _ = submit_paper(store, ItemsImportedPublisher(store, bus, topics), Paper(
        "p-fuzz", "Viruses", "CC0", (PaperItem("What protects the viral genome?", "the capsid"),
                                     PaperItem("Which enzyme cuts bone collagen?", "", ("collagenase", "amylase"), 0))))
    build_id = _create_build(ctx)
    assert run_until(bus, topics, list(handlers.values()), lambda: (
        paper_status(store, paper.paper_id).terminal and BuildRecords(store, build_id).state().terminal
        and (state := batch_state(store, batch.batch_id)) is not None and state.state == "indexed"), 120)
    queued = _create_build(ctx, seed=2)
    cancelled = _create_build(ctx, seed=3)
    BuildServicer(ctx).CancelBuild(pb.CancelBuildRequest(build_id=cancelled), None)
    consumed = {stage: records(bus, topics.consumed_by(stage)) for stage in STAGES}
    keys = store.list_keys("")
    ids = {"build_id": [build_id, queued, cancelled], "batch_id": [batch.batch_id, paper.paper_id],
           "key": keys, "sha256": [hashlib.sha256(store.get_bytes(k)).hexdigest() for k in keys[:50]]}
    return EventWorld(ctx, topics, handlers, consumed, build_id, batch.batch_id, paper.paper_id, ids)
