"""A build world without infrastructure: filesystem store, in-memory bus, the synthetic world."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from scicustom.adapters.filesystem_store import FilesystemObjectStore
from scicustom.adapters.memory_bus import InMemoryEventBus
from scicustom.app.build.build_records import BUILD_STAGES, BuildRecords
from scicustom.builds.servicer import BuildServicer
from scicustom.builds.v1 import builds_pb2 as pb
from scicustom.builds.worker import BuildStageHandler
from scicustom.workers.stage_consumer import StageWorker, WorkerOptions
from scicustom.workers.topics import Topics
from tests.support.synthetic_world import synthetic_world

TEXT = "virology: virus capsid, viral genome and virus replication in the host cell"
VERSIONS = {"n_items": 240, "corpus": "synthetic"}


@dataclass
class StubSettings:
    topic_prefix: str = "t"
    max_active_builds_per_tenant: int = 20


@dataclass
class StubContext:
    store: FilesystemObjectStore
    event_bus: InMemoryEventBus
    settings: StubSettings = field(default_factory=StubSettings)


class SyntheticWorlds:
    """Each stage gets a freshly assembled world, as a separate worker process would."""

    def __init__(self) -> None:
        self.assembled = 0

    def get(self, requirement, seed, jury):
        self.assembled += 1
        return synthetic_world(), VERSIONS


@pytest.fixture
def ctx(tmp_path: Path) -> StubContext:
    return StubContext(FilesystemObjectStore(tmp_path / "store"), InMemoryEventBus())


def run_workers(ctx: StubContext, until, stages=BUILD_STAGES, worlds=None,
                timeout_s: float = 60.0) -> list[StageWorker]:
    topics = Topics("t")
    worlds = worlds or SyntheticWorlds()
    workers = [StageWorker(ctx.event_bus, topics, BuildStageHandler(s, ctx, topics, worlds),
                           WorkerOptions(max_attempts=2, backoff_s=0.0, poll_timeout_s=0.05)) for s in stages]
    stop = threading.Event()
    threads = [threading.Thread(target=w.run, args=(stop,)) for w in workers]
    for t in threads:
        t.start()
    deadline = time.monotonic() + timeout_s
    try:
        while not until(workers) and time.monotonic() < deadline:
            time.sleep(0.02)
    finally:
        stop.set()
        for t in threads:
            t.join()
    assert until(workers), "the workers did not get there"
    return workers


def create_build(ctx: StubContext, service: BuildServicer | None = None, **fields) -> pb.Build:
    request = pb.CreateBuildRequest(**{"requirement_text": TEXT, "k1": 2, "k2": 20, "proxy_samples": 10, "seed": 1,
                                       "relevance_quantile": 0.75, **fields})
    return (service or BuildServicer(ctx)).CreateBuild(request, None)




def terminal(ctx: StubContext, build_id: str):
    return lambda workers: BuildRecords(ctx.store, build_id).state().terminal
