"""Builds with LLM judges (`--llm-judges`) while the LLM provider misbehaves: the stage workers on the
in-memory bus, the LLM through litellm against the recorded server with injected 429s, 500s and
timeouts. Faults a retry outlasts leave the build byte-identical to a fault-free one (no question
lost or duplicated); a provider that stays down fails the build with a reason naming the LLM, and
no file is ever listed before the build succeeded."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest

from scicustom.adapters.filesystem_store import FilesystemObjectStore
from scicustom.adapters.litellm_llm import LiteLLMAdapter
from scicustom.adapters.llm_response_cache import LLMResponseCache
from scicustom.adapters.memory_bus import InMemoryEventBus
from scicustom.app.build.build_records import BUILD_STAGES, BuildRecords
from scicustom.app.build.request import JuryOptions
from scicustom.builds.servicer import BuildServicer
from scicustom.builds.v1 import builds_pb2 as pb
from scicustom.builds.worker import BuildStageHandler
from scicustom.core.build.llm_judges import LLMRelevanceJudge
from scicustom.core.build.pipeline import BuildWorld
from scicustom.core.requirement import Requirement
from scicustom.workers.stage_consumer import StageWorker, WorkerOptions
from scicustom.workers.topics import Topics
from tests.support.recorded_llm_server import RecordedLLMServer
from tests.support.synthetic_world import synthetic_world
from tests.unit.workers.conftest import VERSIONS, StubContext

JUDGE = "openai/judge-a"
REQUIREMENT = """requirement: vir
domain: virology
description: virus capsid, viral genome and virus replication in the host cell
k1: 2
k2: 20
voting_judges: [{provider: openai, model: judge-a}]
relevance_judges: [{provider: openai, model: judge-a}]
"""
# Short everything: a stage retries a failed record once, and waits out an "outage" for 1 s only.
OPTIONS = WorkerOptions(max_attempts=2, backoff_s=0.0, poll_timeout_s=0.05, outage_budget_s=1.0, max_backoff_s=0.1)


class LLMJudgedWorlds:
    """The synthetic world with its similarity judges, plus an LLM relevance judge when asked for. (Its
    four topics are too few for the topic-vs-field judges: a quarter of the background is the topic.)"""

    def __init__(self, llm: LiteLLMAdapter) -> None:
        self.llm = llm

    def get(self, requirement: Requirement, seed: int, jury: JuryOptions) -> tuple[BuildWorld, dict[str, Any]]:
        world = synthetic_world()
        if jury.llm_judges:
            offline, judge = world.relevance_jury, LLMRelevanceJudge(self.llm, JUDGE)
            world.relevance_jury = lambda req, votes: [*offline(req, votes), judge]
        return world, VERSIONS


def _build(tmp_path: Path, server: RecordedLLMServer) -> tuple[pb.Build, dict[str, bytes]]:
    """One --llm-judges build through the six stage workers: its end state and its files."""
    ctx = StubContext(FilesystemObjectStore(tmp_path / "store"), InMemoryEventBus())
    llm = LiteLLMAdapter(LLMResponseCache(tmp_path / "llm-cache.sqlite"), api_base=server.api_base, api_key="t",
                         max_retries=3, backoff_s=0.0, timeout_s=0.5)
    servicer, worlds, topics = BuildServicer(ctx), LLMJudgedWorlds(llm), Topics(ctx.settings.topic_prefix)
    build = servicer.CreateBuild(pb.CreateBuildRequest(requirement_yaml=REQUIREMENT, llm_judges=True, seed=1,
                                                       proxy_samples=10, relevance_quantile=0.75), None)
    workers = [StageWorker(ctx.event_bus, topics, BuildStageHandler(stage, ctx, topics, worlds), OPTIONS)  # type: ignore[arg-type]
               for stage in BUILD_STAGES]
    stop = threading.Event()
    threads = [threading.Thread(target=w.run, args=(stop,)) for w in workers]
    for thread in threads:
        thread.start()
    seen = []
    deadline = time.monotonic() + 120
    try:
        while time.monotonic() < deadline:
            seen.append(servicer.GetBuild(pb.GetBuildRequest(build_id=build.build_id), None))
            if BuildRecords(ctx.store, build.build_id).state().terminal:
                break
            time.sleep(0.05)
    finally:
        stop.set()
        for thread in threads:
            thread.join()
    final = servicer.GetBuild(pb.GetBuildRequest(build_id=build.build_id), None)
    assert final.state in (pb.BUILD_STATE_SUCCEEDED, pb.BUILD_STATE_FAILED), final
    for state in seen:  # no partial artifact visible
        assert state.state == pb.BUILD_STATE_SUCCEEDED or not state.files, state
    return final, {f.name: ctx.store.get_bytes(f.key) for f in final.files}


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """The files of the same build with a provider that never fails."""
    with RecordedLLMServer(rules=[("Is this item relevant", "Yes")]) as server:
        final, files = _build(tmp_path_factory.mktemp("reference"), server)
    assert final.state == pb.BUILD_STATE_SUCCEEDED, final.error
    assert server.calls and final.n_mcq > 0
    return files


def test_faults_a_retry_outlasts_leave_the_build_identical(tmp_path, reference):
    # One call meets a 429, a 500 and a timeout in a row; its fourth attempt is answered.
    faults = ["429", "500", "timeout"]
    with RecordedLLMServer(rules=[("Is this item relevant", "Yes")], faults=list(faults), stall_s=1.5) as server:
        final, files = _build(tmp_path / "faulted", server)
    assert final.state == pb.BUILD_STATE_SUCCEEDED, final.error
    assert server.faults == []  # every injected fault was met, and retried past
    assert files == reference  # byte-identical: no question lost, none twice


@pytest.mark.parametrize("fault", ["429", "timeout"])
def test_a_provider_that_stays_down_fails_the_build_with_a_reason(tmp_path, fault):
    with RecordedLLMServer(rules=[("Is this item relevant", "Yes")], always=fault, stall_s=1.0) as server:
        final, files = _build(tmp_path / "down", server)
    assert final.state == pb.BUILD_STATE_FAILED and not files
    assert JUDGE in final.error, final.error  # the reason names the LLM call that failed
    assert len(server.calls) >= 4  # the adapter retried (1 + 3 attempts) before giving up
