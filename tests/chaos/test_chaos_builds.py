"""Builds survive SIGKILLed workers and a restarted object store and broker.

Invariants checked for every build: it ends SUCCEEDED (or FAILED with a reason), no file is listed
before it succeeds (no partial artifact visible), its files are byte-identical to the embedded
build's, its questions are the embedded build's, none lost and none twice. CHAOS_RUNS (default 20)
sets the number of kill runs; CHAOS_SEED the random points.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import time
import uuid

import pytest

from scicustom.builds.v1 import builds_pb2 as pb
from scicustom.devstack.platform_processes import scicustom_command
from scicustom.devstack.real_servers import ServerProcess, accepts_connections
from tests.integration.test_cluster_build import WORKER_GROUPS, Cluster, _output, _request
from tests.support.server_restart import restart_server

RUNS = int(os.environ.get("CHAOS_RUNS", "20"))
RNG = random.Random(int(os.environ.get("CHAOS_SEED", "15")))
TERMINAL = (pb.BUILD_STATE_SUCCEEDED, pb.BUILD_STATE_FAILED, pb.BUILD_STATE_CANCELLED)


def _follow(cluster: Cluster, build_id: str, timeout_s: float = 600) -> pb.Build:
    """Polls to the end, checking on the way that no file is visible before the build succeeded."""
    stub = cluster.stub()
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            build = stub.GetBuild(pb.GetBuildRequest(build_id=build_id), timeout=30)
        except Exception:  # the store behind the service is being restarted
            time.sleep(0.5)
            continue
        if build.state != pb.BUILD_STATE_SUCCEEDED:
            assert not build.files, f"partial artifact visible: {build}"
        if build.state in TERMINAL:
            return build
        time.sleep(0.2)
    raise AssertionError(f"build {build_id} did not end in {timeout_s:.0f} s")


def _assert_identical(cluster: Cluster, build: pb.Build) -> None:
    assert build.state == pb.BUILD_STATE_SUCCEEDED, build.error
    for entry in build.files:
        assert _output(cluster, build, entry.name) == (cluster.embedded / entry.name).read_bytes(), entry.name
    ids = [json.loads(line)["id"] for line in _output(cluster, build, "benchmark.jsonl").decode().splitlines()]
    embedded = [json.loads(line)["id"] for line in (cluster.embedded / "benchmark.jsonl").read_text().splitlines()]
    assert len(ids) == len(set(ids)) == build.n_mcq and sorted(ids) == sorted(embedded)


def _create(cluster: Cluster) -> str:
    request = _request()
    request.request_id = f"chaos-{uuid.uuid4().hex}"
    return cluster.stub().CreateBuild(request, timeout=60).build_id


def _kill9(process: ServerProcess) -> None:
    os.kill(process.popen.pid, signal.SIGKILL)  # our own child, by its PID
    process.popen.wait()


@pytest.mark.timeout(3600)
def test_builds_survive_workers_killed_at_random_points(cluster: Cluster) -> None:
    outcomes = []
    for run in range(RUNS):
        group = RNG.choice(sorted(WORKER_GROUPS))
        build_id = _create(cluster)
        time.sleep(RNG.uniform(0.0, 3.0))  # a random point of the build (about 2 s warm)
        _kill9(cluster.processes[group])
        cluster.restart_worker(group)
        final = _follow(cluster, build_id)
        outcomes.append((run, group, pb.BuildState.Name(final.state), final.error))
        _assert_identical(cluster, final)
    print("chaos kill runs:", outcomes)


def test_a_build_survives_an_object_store_restart(cluster: Cluster, s3_server) -> None:
    build_id = _create(cluster)
    time.sleep(0.5)
    s3_server.process.stop(grace_s=1)
    time.sleep(5.0)  # longer than the clients' own retries (~1.5 s): the outage budget waits it out
    port = int(s3_server.endpoint.rsplit(":", 1)[1])
    restart_server(s3_server.process, lambda _: accepts_connections(port))
    _assert_identical(cluster, _follow(cluster, build_id))


def test_a_build_survives_a_broker_restart(cluster: Cluster, kafka_server) -> None:
    """tansu keeps its log in memory: a restart loses the build's in-flight events and the groups'
    offsets. The stage workers wait out the outage (a producer wedged on the id the broker forgot is
    replaced after its flush deadline, 60 s); the reaper republishes the lost event. Its stall timeout
    is above that deadline: a worker still retrying its publish is not a stalled build."""
    build_id = _create(cluster)
    time.sleep(0.5)
    kafka_server.process.stop(grace_s=1)
    time.sleep(3.0)
    port = int(kafka_server.bootstrap.rsplit(":", 1)[1])
    restart_server(kafka_server.process, lambda _: accepts_connections(port))
    subprocess.run([scicustom_command(), "cluster", "init", "--partitions", "2"], env=cluster.env,
                   cwd=cluster.work, check=True, capture_output=True, timeout=300)
    deadline = time.monotonic() + 600
    while cluster.stub().GetBuild(pb.GetBuildRequest(build_id=build_id), timeout=30).state not in TERMINAL:
        assert time.monotonic() < deadline, "the build did not end after the broker restart"
        subprocess.run([scicustom_command(), "reaper", "--once"], cwd=cluster.work, check=True,
                       env={**cluster.env, "SCICUSTOM_BUILD_HEARTBEAT_TIMEOUT_S": "90"}, capture_output=True,
                       timeout=300)
        time.sleep(5.0)
    _assert_identical(cluster, _follow(cluster, build_id))
