"""BuildService over a loopback channel with the interceptors `scicustom service` installs:
status codes name the field, WatchBuild streams each change and ends on a terminal state."""

from __future__ import annotations

import threading

import grpc
import pytest

from scicustom.app.build.build_records import BUILD_STAGES
from scicustom.builds.servicer import SERVICE_NAME, binding
from scicustom.builds.v1 import builds_pb2 as pb
from scicustom.builds.v1 import builds_pb2_grpc as pb_grpc
from tests.support.grpc_loopback import health_status, loopback, rpc_error
from tests.unit.workers.conftest import TEXT, StubContext, run_workers, terminal


@pytest.fixture
def served(ctx: StubContext):
    with loopback([binding(ctx)]) as channel:
        yield ctx, pb_grpc.BuildServiceStub(channel), channel


def test_health_and_status_codes(served):
    _, stub, channel = served
    assert health_status(channel, SERVICE_NAME) == 1  # SERVING
    error = rpc_error(lambda: stub.CreateBuild(pb.CreateBuildRequest(requirement_text=TEXT, k1=500), timeout=10))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT and error.details().startswith("k1: ")
    error = rpc_error(lambda: stub.GetBuild(pb.GetBuildRequest(build_id="b-missing"), timeout=10))
    assert error.code() == grpc.StatusCode.NOT_FOUND and error.details().startswith("build_id: ")
    error = rpc_error(lambda: stub.GetBuild(pb.GetBuildRequest(build_id="../etc"), timeout=10))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT


def test_watch_streams_progress_until_the_build_succeeds(served):
    ctx, stub, _ = served
    build = stub.CreateBuild(pb.CreateBuildRequest(requirement_text=TEXT, k1=2, k2=20, proxy_samples=10, seed=1,
                                                   relevance_quantile=0.75), timeout=10)
    seen: list[pb.BuildProgress] = []
    watcher = threading.Thread(target=lambda: seen.extend(
        stub.WatchBuild(pb.WatchBuildRequest(build_id=build.build_id), timeout=60)))
    watcher.start()
    run_workers(ctx, terminal(ctx, build.build_id))
    watcher.join()
    assert seen[0].stages_done < len(BUILD_STAGES)
    assert [p.stages_done for p in seen] == sorted(p.stages_done for p in seen)  # never goes back
    assert seen[-1].build.state == pb.BUILD_STATE_SUCCEEDED and seen[-1].stages_done == len(BUILD_STAGES)
    assert seen[-1].current_stage == "" and {f.name for f in seen[-1].build.files} >= {"benchmark.jsonl"}
    cancelled = stub.CancelBuild(pb.CancelBuildRequest(build_id=build.build_id), timeout=10)
    assert cancelled.state == pb.BUILD_STATE_SUCCEEDED  # a finished build is unchanged
