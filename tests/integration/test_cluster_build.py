"""The distributed build against real servers: BuildService and stage workers as separate
processes over Kafka (tansu), S3 (SeaweedFS) and the Elasticsearch API (noida-db).

One module-scoped cluster: the corpus slice is loaded through the cluster profile with the same
commands as the embedded home, then builds go through `scicustom --profile cluster build`.
"""

from __future__ import annotations

import itertools
import json
import os
import signal
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import grpc
import pytest

from scicustom.builds.v1 import builds_pb2 as pb
from scicustom.builds.v1 import builds_pb2_grpc as pb_grpc
from scicustom.client.call_metadata import MetadataInterceptor
from scicustom.config import RESOURCES
from scicustom.devstack.platform_processes import cluster_env, scicustom_command, start_service, start_worker
from scicustom.devstack.real_servers import ServerProcess
from scicustom.events.v1 import events_pb2 as ev
from tests.support.otlp_receiver import OtlpReceiver

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]
# On a 60-per-source slice the relevance jury finds no virology item and a few inorganic chemistry ones:
# inorganic chemistry with the thin-coverage floor at 1, so the builds compared below have MCQs.
REQUIREMENT = RESOURCES / "requirements/chemistry_inorganic.yaml"
BUILD_ARGS = ["--requirement", str(REQUIREMENT), "--k2", "12", "--proxy-samples", "20", "--min-items", "1"]
SLICE = ["--limit-per-source", "60"]  # >= 50 MMLU items for the zero-shot calibration
# Shared caches, and shorter perplexity contexts to keep the two corpus loads quick (both modes alike).
CACHES = {"SCICUSTOM_WHEEL_CACHE_DIR": str(REPO / ".scicustom/cache/wheels"),
          "SCICUSTOM_MODEL_CACHE_DIR": str(REPO / ".scicustom/cache/models"),
          "SCICUSTOM_PERPLEXITY_MAX_QUESTION_TOKENS": "64"}
WORKER_GROUPS = {"early": ["vote", "candidates"], "cutoff": ["cutoff"], "late": ["select", "generate", "complete"]}


def _scicustom(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([scicustom_command(), *args], env=env, cwd=cwd, capture_output=True, text=True,
                          timeout=1200, check=False)
    assert done.returncode == 0, f"scicustom {' '.join(args)} -> {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done


@dataclass
class Cluster:
    env: dict[str, str]
    work: Path
    embedded: Path                        # the embedded build's output directory
    builds_port: int
    processes: dict[str, ServerProcess]
    receiver: OtlpReceiver
    topic_prefix: str

    def restart_worker(self, group: str) -> None:
        process, _ = start_worker(WORKER_GROUPS[group], {**self.env, "SCICUSTOM_GRPC_PORT": "0"}, self.work / "logs",
                                  name=f"worker-{group}")
        self.processes[group] = process

    def stub(self) -> pb_grpc.BuildServiceStub:
        """BuildService as the cluster's tenant (cluster_env made its token; every RPC needs one)."""
        bearer = [("authorization", f"Bearer {self.env['SCICUSTOM_AUTH_TOKEN']}")]
        channel = grpc.intercept_channel(grpc.insecure_channel(f"127.0.0.1:{self.builds_port}"),
                                         MetadataInterceptor(lambda: bearer))
        return pb_grpc.BuildServiceStub(channel)


@pytest.fixture(scope="module")
def cluster(s3_server, kafka_server, elasticsearch_server, tmp_path_factory) -> Iterator[Cluster]:
    work = tmp_path_factory.mktemp("cluster")
    receiver = OtlpReceiver.start()
    name = f"t{uuid.uuid4().hex[:10]}"
    env = cluster_env(s3_server, kafka_server, elasticsearch_server, work / "home", index=name, topic_prefix=name,
                      extra={**CACHES, "SCICUSTOM_S3_BUCKET": name,
                             # Several services and workers on one host: the default metrics port
                             # (9464 in the cluster profile) would clash, and nothing here scrapes it.
                             "SCICUSTOM_METRICS_PORT": "0",
                             "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{receiver.port}",
                             "OTEL_EXPORTER_OTLP_INSECURE": "true", "OTEL_BSP_SCHEDULE_DELAY": "200"})
    # The embedded reference: the same slice and build in a local home. Same inputs means the same
    # scored corpus: the cluster computes every item's intrinsic scores at import, so does this one.
    local = {k: v for k, v in env.items() if not k.startswith(("SCICUSTOM_", "OTEL_"))}
    local.update(CACHES, SCICUSTOM_HOME=str(work / "local-home"))
    for step in (["corpus", "import", *SLICE, "--eager-scores"], ["corpus", "tag"],
                 ["build", *BUILD_ARGS, "--out", "embedded"]):
        _scicustom(step, local, work)
    # The cluster: the same commands through the cluster profile, then services and workers.
    for step in (["cluster", "init", "--partitions", "2"], ["corpus", "import", *SLICE], ["corpus", "tag"],
                 ["corpus", "index"]):
        _scicustom(step, env, work)
    processes: dict[str, ServerProcess] = {}
    try:
        service, port = start_service("builds", env, work / "logs")
        processes["builds"] = service
        env["SCICUSTOM_BUILD_SERVICE_ADDRESS"] = f"127.0.0.1:{port}"
        state = Cluster(env, work, work / "embedded", port, processes, receiver, name)
        for group in WORKER_GROUPS:
            state.restart_worker(group)
        yield state
    finally:
        for process in processes.values():
            process.stop(grace_s=15)
        receiver.stop()


def _files(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())}


def test_cluster_build_is_byte_identical_to_the_embedded_build(cluster: Cluster) -> None:
    done = _scicustom(["build", *BUILD_ARGS, "--out", "through-kafka"], cluster.env, cluster.work)
    assert "succeeded" in done.stdout
    embedded, distributed = _files(cluster.embedded), _files(cluster.work / "through-kafka")
    assert distributed["benchmark.jsonl"] == embedded["benchmark.jsonl"]
    assert distributed == embedded  # every file, not only the benchmark


# The SDK in a process of its own whose environment has no storage, Kafka or Elasticsearch settings:
# only BuildService's address, given on the command line, and the tenant's token in SCICUSTOM_AUTH_TOKEN.
SDK_BUILD = """
import os
import sys
from pathlib import Path
from scicustom.client import BuildsClient, BuildStatus, ClientOptions

address, requirement, out = sys.argv[1:]
token = os.environ["SCICUSTOM_AUTH_TOKEN"]  # the tenant's token, from the environment (never argv)
with BuildsClient(address, ClientOptions(metadata=lambda: [("authorization", f"Bearer {token}")])) as builds:
    build = builds.create(Path(requirement), k2=12, proxy_samples=20, min_items=1)
    done = builds.wait(build.build_id, timeout_s=600)
    assert done.status is BuildStatus.SUCCEEDED, done.error
    builds.download(done, Path(out))
print(done.build_id)
"""


def test_sdk_drives_a_remote_build_and_downloads_it_without_storage_credentials(cluster: Cluster) -> None:
    env = {"PATH": os.environ["PATH"], "HOME": str(cluster.work), "LANG": "C.UTF-8",
           "SCICUSTOM_AUTH_TOKEN": cluster.env["SCICUSTOM_AUTH_TOKEN"]}
    out = cluster.work / "through-sdk"
    done = subprocess.run([sys.executable, "-c", SDK_BUILD, f"127.0.0.1:{cluster.builds_port}", str(REQUIREMENT),
                           str(out)], env=env, cwd=cluster.work, capture_output=True, text=True, timeout=900,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert _files(out) == _files(cluster.embedded)  # every file, byte for byte


def _wait(stub: pb_grpc.BuildServiceStub, build_id: str, predicate, timeout_s: float = 300) -> pb.Build:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        build = stub.GetBuild(pb.GetBuildRequest(build_id=build_id), timeout=30)
        if predicate(build):
            return build
        time.sleep(0.1)
    raise AssertionError(f"build {build_id} did not get there: {build}")


def _request() -> pb.CreateBuildRequest:
    return pb.CreateBuildRequest(requirement_yaml=REQUIREMENT.read_text(), k2=12, proxy_samples=20, min_items=1)


def test_worker_killed_mid_build_resumes_with_nothing_lost_or_duplicated(cluster: Cluster) -> None:
    stub = cluster.stub()
    victim = cluster.processes["cutoff"]
    # With a warm world a whole build takes about two seconds, too quick to catch a stage by
    # polling. Freezing the cutoff worker first pins the build between candidates and cutoff:
    # its consumer holds the partition, fetches nothing and commits nothing until it is killed.
    os.kill(victim.popen.pid, signal.SIGSTOP)  # our own worker process, by its PID
    build = stub.CreateBuild(_request(), timeout=60)

    def waiting_for_cutoff(b: pb.Build) -> bool:
        return "candidates" in {s.stage for s in b.stages if s.done}

    stalled = _wait(stub, build.build_id, waiting_for_cutoff)
    assert "cutoff" not in {s.stage for s in stalled.stages if s.done}
    os.kill(victim.popen.pid, signal.SIGKILL)
    victim.popen.wait()
    assert _wait(stub, build.build_id, lambda b: True).state != pb.BUILD_STATE_SUCCEEDED
    cluster.restart_worker("cutoff")
    final = _wait(stub, build.build_id, lambda b: b.state in (pb.BUILD_STATE_SUCCEEDED, pb.BUILD_STATE_FAILED))
    assert final.state == pb.BUILD_STATE_SUCCEEDED, final.error
    benchmark = _output(cluster, final, "benchmark.jsonl")
    assert benchmark == (cluster.embedded / "benchmark.jsonl").read_bytes()
    ids = [json.loads(line)["id"] for line in benchmark.decode().splitlines()]
    assert len(ids) == len(set(ids)) == final.n_mcq


def _output(cluster: Cluster, build: pb.Build, name: str) -> bytes:
    from minio import Minio

    client = Minio(cluster.env["SCICUSTOM_S3_ENDPOINT"], access_key=cluster.env["SCICUSTOM_S3_ACCESS_KEY"],
                   secret_key=cluster.env["SCICUSTOM_S3_SECRET_KEY"], secure=False)
    (entry,) = [f for f in build.files if f.name == name]
    return client.get_object(cluster.env["SCICUSTOM_S3_BUCKET"], entry.key).read()


def test_a_build_since_an_earlier_one_writes_what_changed(cluster: Cluster) -> None:
    stub = cluster.stub()
    done = (pb.BUILD_STATE_SUCCEEDED, pb.BUILD_STATE_FAILED)
    first = _wait(stub, stub.CreateBuild(_request(), timeout=60).build_id, lambda b: b.state in done)
    request = _request()
    request.since_build_id = first.build_id
    second = _wait(stub, stub.CreateBuild(request, timeout=60).build_id, lambda b: b.state in done)
    assert second.state == pb.BUILD_STATE_SUCCEEDED and second.since_build_id == first.build_id
    diff = json.loads(_output(cluster, second, "diff.json"))
    ids = [json.loads(line)["id"] for line in _output(cluster, first, "benchmark.jsonl").decode().splitlines()]
    # Same spec, same corpus: every question is kept.
    assert diff["previous"] == first.build_id and diff["questions"]["kept"] == ids
    assert diff["questions"]["added"] == diff["questions"]["removed"] == []


def test_poison_event_is_dead_lettered_while_later_builds_flow(cluster: Cluster) -> None:
    from kafka import KafkaConsumer, KafkaProducer

    bootstrap = cluster.env["SCICUSTOM_KAFKA_BOOTSTRAP"]
    producer = KafkaProducer(bootstrap_servers=bootstrap)
    producer.send(f"{cluster.topic_prefix}.build.requested", b"\x08\x96\x01 not an envelope", key=b"poison")
    producer.flush()
    producer.close()
    stub = cluster.stub()
    build = stub.CreateBuild(_request(), timeout=60)
    final = _wait(stub, build.build_id, lambda b: b.state in (pb.BUILD_STATE_SUCCEEDED, pb.BUILD_STATE_FAILED))
    assert final.state == pb.BUILD_STATE_SUCCEEDED
    consumer = KafkaConsumer(f"{cluster.topic_prefix}.dlq.vote", bootstrap_servers=bootstrap,
                             group_id=f"check-{uuid.uuid4().hex[:6]}", auto_offset_reset="earliest",
                             session_timeout_ms=6000, consumer_timeout_ms=20000)
    letters = [ev.DeadLetter.FromString(record.value) for record in consumer]
    consumer.close()
    poison = [letter for letter in letters if letter.value == b"\x08\x96\x01 not an envelope"]
    assert len(poison) == 1
    assert poison[0].stage == "vote" and poison[0].topic == f"{cluster.topic_prefix}.build.requested"


def test_one_trace_per_build_with_parent_child_edges_across_services(cluster: Cluster) -> None:
    stub = cluster.stub()
    build = stub.CreateBuild(_request(), timeout=60)
    _wait(stub, build.build_id, lambda b: b.state == pb.BUILD_STATE_SUCCEEDED)
    time.sleep(2.0)  # let the batch span processors export
    spans = cluster.receiver.spans()
    create = [s for s in spans if s.name == "scicustom.builds.v1.BuildService/CreateBuild"
              and s.service == "scicustom-builds" and s.attributes.get("scicustom.build_id") == build.build_id]
    assert len(create) == 1, [s.name for s in spans if s.service == "scicustom-builds"]
    trace = [s for s in spans if s.trace_id == create[0].trace_id]
    by_id = {s.span_id: s for s in trace}
    consumers = {s.attributes.get("scicustom.stage"): s for s in trace if s.kind == "CONSUMER"}
    assert set(consumers) >= {"vote", "candidates", "cutoff", "select", "generate", "complete"}
    # build.requested: BuildService (one process) -> the vote worker (another process).
    vote = consumers["vote"]

    def ancestors(span):
        while span.parent_span_id in by_id:
            span = by_id[span.parent_span_id]
            yield span

    assert create[0] in list(ancestors(vote))
    assert by_id[vote.parent_span_id].service == "scicustom-builds"
    assert vote.service == "scicustom-worker-early"
    # Each later stage is a child of the stage before it, across worker processes.
    order = ["vote", "candidates", "cutoff", "select", "generate", "complete"]
    for earlier, later in itertools.pairwise(order):
        assert consumers[earlier] in list(ancestors(consumers[later])), (earlier, later)
    assert {s.service for s in trace} >= {"scicustom-builds", "scicustom-worker-early", "scicustom-worker-cutoff",
                                          "scicustom-worker-late"}
