"""Builds by state: BuildService counts a new build queued, the stage workers count it running,
then succeeded, failed or cancelled; read from the process's own endpoint, as Prometheus would."""

from __future__ import annotations

from pathlib import Path

from scicustom.adapters.filesystem_store import FilesystemObjectStore
from scicustom.adapters.memory_bus import InMemoryEventBus
from scicustom.builds.servicer import BuildServicer
from scicustom.builds.v1 import builds_pb2 as pb
from scicustom.core.errors import PreconditionFailed
from scicustom.telemetry.metrics_endpoint import start_metrics_endpoint
from tests.unit.telemetry.prometheus_scrape import scrape
from tests.unit.workers.conftest import StubContext, SyntheticWorlds, create_build, run_workers, terminal

STATES = ("queued", "running", "succeeded", "failed", "cancelled")


class _BrokenWorlds(SyntheticWorlds):
    def get(self, requirement, seed, jury):
        raise PreconditionFailed("the corpus is empty")


def _builds_by_state(url: str) -> dict[str, float]:
    page = scrape(url)
    return {state: page.value("scicustom_builds_total", state=state) or 0.0 for state in STATES}


def _context(tmp_path: Path, name: str) -> StubContext:
    return StubContext(FilesystemObjectStore(tmp_path / name), InMemoryEventBus())


def test_each_build_counts_once_in_each_state_it_enters(tmp_path):
    endpoint = start_metrics_endpoint("127.0.0.1", 0)  # the process's metrics, which the edges write to
    try:
        before = _builds_by_state(endpoint.url)
        ok = _context(tmp_path, "ok")
        build = create_build(ok, method="greedy-topk", request_id="r-1")
        assert create_build(ok, method="greedy-topk", request_id="r-1").build_id == build.build_id  # no new build
        run_workers(ok, terminal(ok, build.build_id))

        cancelled = _context(tmp_path, "cancelled")
        build = create_build(cancelled)
        BuildServicer(cancelled).CancelBuild(pb.CancelBuildRequest(build_id=build.build_id), None)
        run_workers(cancelled, terminal(cancelled, build.build_id))

        failed = _context(tmp_path, "failed")
        build = create_build(failed)
        run_workers(failed, terminal(failed, build.build_id), worlds=_BrokenWorlds())
        after = _builds_by_state(endpoint.url)
    finally:
        endpoint.stop()
    entered = {state: after[state] - before[state] for state in STATES}
    # The cancelled and the failed build stop at the first stage: only the good one ran.
    assert entered == {"queued": 3, "running": 1, "succeeded": 1, "failed": 1, "cancelled": 1}
