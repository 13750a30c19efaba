"""Chaos on the real Kafka (tansu) and S3 (SeaweedFS) servers with the synthetic world, so it needs
no corpus: stage worker processes SIGKILLed at random points and restarted, the object store
restarted mid-build. Every build must end SUCCEEDED with no file listed before it succeeded and
files byte-identical to the embedded one-process build (so no question lost or duplicated)."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from scicustom.adapters.kafka_bus import KafkaEventBus
from scicustom.adapters.minio_store import MinioObjectStore
from scicustom.builds.servicer import BuildServicer
from scicustom.builds.v1 import builds_pb2 as pb
from scicustom.core.build.pipeline import BuildParams
from scicustom.devstack.real_servers import accepts_connections
from tests.support.server_restart import restart_server
from tests.unit.workers.conftest import TEXT, StubContext, StubSettings
from tests.unit.workers.test_staged_build import _embedded_files

RUNS = int(os.environ.get("CHAOS_RUNS", "20"))
RNG = random.Random(int(os.environ.get("CHAOS_SEED", "15")))
REPO = Path(__file__).resolve().parents[2]
GROUPS = {"early": "vote,candidates", "cutoff": "cutoff", "late": "select,generate,complete"}
TERMINAL = (pb.BUILD_STATE_SUCCEEDED, pb.BUILD_STATE_FAILED, pb.BUILD_STATE_CANCELLED)


class Workers:
    def __init__(self, args: list[str], log_dir: Path) -> None:
        self.args, self.log_dir, self.processes = args, log_dir, {}
        for group in GROUPS:
            self.start(group)

    def start(self, group: str) -> None:
        log = open(self.log_dir / f"worker-{group}.log", "ab")  # noqa: SIM115  the child keeps it
        self.processes[group] = subprocess.Popen(
            [sys.executable, "-m", "tests.chaos.synthetic_worker", *self.args, GROUPS[group]], cwd=REPO,
            stdout=log, stderr=subprocess.STDOUT, env={**os.environ, "PYTHONPATH": str(REPO)})

    def kill9(self, group: str) -> None:
        process = self.processes[group]
        os.kill(process.pid, signal.SIGKILL)  # our own child, by its PID
        process.wait()

    def stop(self) -> None:
        for process in self.processes.values():
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(15)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()


@pytest.fixture
def platform(s3_server, kafka_server, unique_name, tmp_path):
    store = MinioObjectStore.connect(s3_server.endpoint, s3_server.access_key, s3_server.secret_key, unique_name)
    bus = KafkaEventBus(kafka_server.bootstrap)
    ctx = StubContext(store, bus, StubSettings(topic_prefix=unique_name))
    workers = Workers([s3_server.endpoint, s3_server.access_key, s3_server.secret_key, unique_name,
                       kafka_server.bootstrap, unique_name], tmp_path)
    try:
        yield ctx, workers
    finally:
        workers.stop()
        bus.close()


def _create(ctx) -> str:
    request = pb.CreateBuildRequest(requirement_text=TEXT, k1=2, k2=20, proxy_samples=10, seed=1,
                                    relevance_quantile=0.75, request_id=f"chaos-{uuid.uuid4().hex}")
    return BuildServicer(ctx).CreateBuild(request, None).build_id


def _follow(ctx, build_id: str, timeout_s: float = 300) -> pb.Build:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            build = BuildServicer(ctx).GetBuild(pb.GetBuildRequest(build_id=build_id), None)
        except Exception:  # the store is being restarted
            time.sleep(0.5)
            continue
        if build.state != pb.BUILD_STATE_SUCCEEDED:
            assert not build.files, f"partial artifact visible: {build}"
        if build.state in TERMINAL:
            return build
        time.sleep(0.2)
    raise AssertionError(f"build {build_id} did not end in {timeout_s:.0f} s")


def _assert_identical(ctx, build: pb.Build) -> None:
    assert build.state == pb.BUILD_STATE_SUCCEEDED, build.error
    files = {f.name: ctx.store.get_bytes(f.key).decode() for f in build.files}
    expected = _embedded_files(BuildParams(method="scicustom", k1=2, k2=20, proxy_samples=10, seed=1))
    assert files == expected
    ids = [json.loads(line)["id"] for line in files["benchmark.jsonl"].splitlines()]
    assert len(ids) == len(set(ids)) == build.n_mcq


@pytest.mark.timeout(3600)
def test_synthetic_builds_survive_workers_killed_at_random_points(platform) -> None:
    ctx, workers = platform
    outcomes = []
    for run in range(RUNS):
        group = RNG.choice(sorted(GROUPS))
        started = time.monotonic()
        build_id = _create(ctx)
        time.sleep(RNG.uniform(0.0, 2.0))
        workers.kill9(group)
        workers.start(group)
        final = _follow(ctx, build_id)
        outcomes.append((run, group, pb.BuildState.Name(final.state), round(time.monotonic() - started, 1)))
        _assert_identical(ctx, final)
    print("\nchaos kill runs (run, killed group, state, seconds):", outcomes)


def test_a_synthetic_build_survives_an_object_store_restart(platform, s3_server) -> None:
    ctx, _ = platform
    _assert_identical(ctx, _follow(ctx, _create(ctx)))  # warm: the workers have joined
    build_id = _create(ctx)
    time.sleep(0.3)
    s3_server.process.stop(grace_s=1)
    time.sleep(5.0)  # longer than the S3 client's own retries (~1.5 s): the outage budget waits it out
    port = int(s3_server.endpoint.rsplit(":", 1)[1])
    restart_server(s3_server.process, lambda _: accepts_connections(port))
    _assert_identical(ctx, _follow(ctx, build_id))
