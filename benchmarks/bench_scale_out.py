"""Builds scale out (issue 17, part 5): builds completed per minute with 1, 2, 4 and 8 build workers on
the real broker, the LLM judges answered by a local OpenAI-compatible server that takes 300 ms per
call. Goal: throughput grows at least 0.8x linearly (throughput_N >= 0.8 * N * throughput_1), so
autoscaling the workers pays.

Real servers as the integration and chaos tests start them (scicustom/devstack/real_servers.py):
tansu (Kafka) and SeaweedFS (S3); no search index, because the world is the chaos tests' synthetic
one (4 units, 240 items, hashing embeddings), small so that 2 cores are not what limits a build.
The judge server (benchmarks/slow_llm_judge.py) is threaded: concurrent calls overlap. Each worker
(benchmarks/scale_out_worker.py) is a process running every build stage, a consumer thread each, with
its own LLM response cache; every build of a batch has its own requirement description, so no LLM
answer is reused from a cache and each build makes its own calls (voting, relevance, MCQ writing).

Per N: a fresh topic prefix and bucket, the platform's topics created with --partitions partitions
(as `scicustom cluster init --partitions` does; default: the largest N, so no worker of a group is
left without a partition), N workers started and given SETTLE_S for their consumer groups to
settle, then one batch of --builds builds submitted at once. Throughput = builds completed /
(last completion - submission), per minute; ratio = throughput_N / throughput_1;
efficiency = throughput_N / (N * throughput_1).
"after fill" leaves out the first N completions (each worker's first build also waits for the pipeline
to fill). Each worker's peak RSS (VmHWM) and CPU seconds during the batch are read from /proc
before it is stopped. "builds per partition" is where each build's completion event arrived: the
build service deals builds out to the partitions in turn (a lane key per partition), and a build's
events stay on its lane. "builds per worker" is the range assignor's blocks of those partitions.
Before lanes a build's events were keyed by its id, and a hash spreads a small batch unevenly (5 of
16 builds on one of 8 partitions): the worker with the most builds set the batch's end.

Workers load the LLM client before consuming, as `scicustom worker` does (commands/worker.py
warm_up). `--cold N,...` also measures those worker counts with cold workers, whose first builds pay
the import (the baseline of the warm-up, in the same run); their efficiency is against the cold run
of the base count when it is measured, else against the warm base.

Run: python benchmarks/bench_scale_out.py [--workers 1,2,4,8] [--builds 8] [--latency-ms 300] [--cold 1,8]
(--builds 16 took about 16 minutes on 2 shared cores, most of it the 1-worker run; the default 8 about halves that)
Writes benchmarks/results/scale_out.json with the machine info.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from machine_info import machine_info

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "benchmarks"), str(ROOT), str(ROOT / "services")]

# Modules of this folder (a PyPI package, pysbd, installs a `benchmarks` package of its own).
from llm_judged_world import WORLD_NAME  # noqa: E402
from slow_llm_judge import slow_llm_judge  # noqa: E402

from scicustom.adapters.kafka_bus import KafkaEventBus  # noqa: E402
from scicustom.adapters.minio_store import MinioObjectStore  # noqa: E402
from scicustom.builds.servicer import BuildServicer  # noqa: E402
from scicustom.builds.v1 import builds_pb2 as pb  # noqa: E402
from scicustom.devstack.real_servers import KafkaServer, S3Server, start_seaweedfs, start_tansu  # noqa: E402
from scicustom.events.v1 import events_pb2 as ev  # noqa: E402
from scicustom.workers.topics import BUILD_COMPLETED, BUILD_FAILED, Topics  # noqa: E402
from tests.unit.workers.conftest import StubContext, StubSettings  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results" / "scale_out.json"
GOAL_EFFICIENCY = 0.8
SETTLE_S = 8.0           # after every worker consumes: tansu group joins take session_timeout / 2 each
BUILD_TIMEOUT_S = 900.0
REQUIREMENT = """requirement: virology-{n}
domain: virology
description: virus capsid, viral genome and virus replication in the host cell (request {n})
k1: 2
k2: 20
voting_judges: [{{provider: openai, model: judge-a}}, {{provider: openai, model: judge-b}},
                {{provider: openai, model: judge-c}}]
relevance_judges: [{{provider: openai, model: judge-a}}]
mcq_writer: {{provider: openai, model: judge-b}}
"""


@dataclass
class WorkerProcess:
    popen: subprocess.Popen[bytes]
    log: Path
    peak_rss_mib: float = 0.0
    cpu_s: float = 0.0
    cpu_before_s: float = 0.0   # at submission: start-up (imports, group joins) is not build work

    def consuming(self) -> bool:
        return "consuming" in self.log.read_text(errors="replace")

    def sample(self) -> None:
        """Peak RSS and CPU time so far, from /proc (this is our own child)."""
        pid = self.popen.pid
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                self.peak_rss_mib = round(int(line.split()[1]) / 1024, 1)
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        self.cpu_s = round((int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK"), 1)

    def stop(self) -> None:
        if self.popen.poll() is None:
            self.popen.terminate()
            try:
                self.popen.wait(30)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait()


@dataclass
class Run:
    workers: int
    cold: bool = False
    submitted_at: float = 0.0
    finished: dict[str, float] = field(default_factory=dict)   # build id -> seconds after submission
    failed: dict[str, str] = field(default_factory=dict)
    llm_calls: int = 0
    processes: list[WorkerProcess] = field(default_factory=list)
    builds_per_partition: list[int] = field(default_factory=list)

    def after_fill(self) -> float | None:
        """Builds per minute after the first N completions (each worker's first build pays the
        pipeline's fill latency): (completed - N) / (last - N-th completion)."""
        times = sorted(t for b, t in self.finished.items() if b not in self.failed)
        if len(times) <= self.workers or times[-1] <= times[self.workers - 1]:
            return None
        return round(60.0 * (len(times) - self.workers) / (times[-1] - times[self.workers - 1]), 3)

    def figures(self, builds: int) -> dict[str, Any]:
        span = max(self.finished.values(), default=0.0)
        succeeded = len(self.finished) - len(self.failed)  # a failed build is not a completed one
        return {
            "run": f"{self.workers} {'cold ' if self.cold else ''}worker(s)",  # names the row in `make bench`
            "workers": self.workers, "warm_up": not self.cold, "builds": builds, "succeeded": succeeded,
            "failed": len(self.failed), "unfinished": builds - len(self.finished), "seconds": round(span, 2),
            "builds_per_min": round(60.0 * succeeded / span, 3) if span else 0.0,
            "after_fill_builds_per_min": self.after_fill(),
            "llm_calls": self.llm_calls, "llm_calls_per_build": round(self.llm_calls / builds, 1),
            "first_completion_s": round(min(self.finished.values(), default=0.0), 2),
            "builds_per_partition": self.builds_per_partition,
            "builds_per_worker": range_assigned(self.builds_per_partition, self.workers),
            "completion_s": sorted(round(t, 2) for t in self.finished.values()),
            "worker_peak_rss_mib": [p.peak_rss_mib for p in self.processes],
            "worker_build_cpu_s": [round(p.cpu_s - p.cpu_before_s, 1) for p in self.processes],
            "errors": sorted(set(self.failed.values()))[:3],
        }


def range_assigned(per_partition: list[int], workers: int) -> list[int]:
    """Builds per worker when a group of `workers` members shares the partitions by Kafka's range
    assignor (contiguous blocks; the first len % workers members get one partition more)."""
    size, extra = divmod(len(per_partition), workers)
    loads, start = [], 0
    for member in range(workers):
        end = start + size + (1 if member < extra else 0)
        loads.append(sum(per_partition[start:end]))
        start = end
    return loads


def start_workers(n: int, s3: S3Server, kafka: KafkaServer, prefix: str, api_base: str, work: Path,
                  cold: bool) -> list[WorkerProcess]:
    processes = []
    for i in range(n):
        log = work / f"worker-{i}.log"
        with open(log, "wb") as out:
            popen = subprocess.Popen(
                [sys.executable, str(ROOT / "benchmarks" / "scale_out_worker.py"), s3.endpoint, s3.access_key,
                 s3.secret_key, prefix, kafka.bootstrap, prefix, api_base, str(work / "llm-cache"),
                 *(["cold"] if cold else [])],
                cwd=ROOT, stdout=out, stderr=subprocess.STDOUT,
                env={**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), str(ROOT / "services")]),
                     "LITELLM_LOCAL_MODEL_COST_MAP": "True"})
        processes.append(WorkerProcess(popen, log))
    deadline = time.monotonic() + 180
    while not all(p.consuming() for p in processes):
        dead = [p for p in processes if p.popen.poll() is not None]
        if dead or time.monotonic() > deadline:
            raise RuntimeError(f"a worker did not start:\n{(dead or processes)[0].log.read_text()[-3000:]}")
        time.sleep(0.5)
    return processes


def measure(n: int, builds: int, partitions: int, s3: S3Server, kafka: KafkaServer, judge: Any,
            work: Path, cold: bool = False) -> Run:
    prefix = f"scale-{n}{'-cold' if cold else ''}-{uuid.uuid4().hex[:8]}"
    bus = KafkaEventBus(kafka.bootstrap)
    topics = Topics(prefix)
    for topic in topics.all():  # what `scicustom cluster init --partitions P` creates
        bus.ensure_topic(topic, partitions)
    store = MinioObjectStore.connect(s3.endpoint, s3.access_key, s3.secret_key, prefix)
    ctx = StubContext(store, bus, StubSettings(topic_prefix=prefix, max_active_builds_per_tenant=builds + 1))  # type: ignore[arg-type]
    # Joins the group now, so its join does not delay the first completions it sees.
    ends = bus.consumer(f"{prefix}-bench", [topics.of(BUILD_COMPLETED), topics.of(BUILD_FAILED)])
    ends.poll(timeout_s=0.1)
    run = Run(n, cold)
    (work / prefix).mkdir()
    run.processes = start_workers(n, s3, kafka, prefix, judge.api_base, work / prefix, cold)
    try:
        time.sleep(SETTLE_S)
        calls_before = len(judge.calls)
        servicer = BuildServicer(ctx)
        for process in run.processes:
            process.sample()
            process.cpu_before_s = process.cpu_s
        run.submitted_at = time.monotonic()
        ids = {servicer.CreateBuild(pb.CreateBuildRequest(requirement_yaml=REQUIREMENT.format(n=k), llm_judges=True,
                                                          seed=1, proxy_samples=10, relevance_quantile=0.75,
                                                          request_id=f"{prefix}-{k}"), None).build_id
               for k in range(builds)}
        partition_of: dict[str, int] = {}
        deadline = run.submitted_at + BUILD_TIMEOUT_S
        while len(run.finished) < len(ids) and time.monotonic() < deadline:
            for record in ends.poll(max_records=100, timeout_s=0.5):
                event = ev.Envelope.FromString(record.value)
                if event.build_id in ids and event.build_id not in run.finished:
                    run.finished[event.build_id] = time.monotonic() - run.submitted_at
                    partition_of[event.build_id] = record.partition
                    if event.WhichOneof("body") == "build_failed":
                        run.failed[event.build_id] = event.build_failed.reason[:200]
            if any(p.popen.poll() is not None for p in run.processes):
                raise RuntimeError("a worker exited mid-run; see its log under " + str(work / prefix))
        ends.commit()
        run.builds_per_partition = [sum(1 for p in partition_of.values() if p == i) for i in range(partitions)]
        run.llm_calls = len(judge.calls) - calls_before
        for process in run.processes:
            process.sample()
    finally:
        for process in run.processes:
            process.stop()
        ends.close()
        bus.close()
    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workers", default="1,2,4,8", help="comma-separated worker counts (the first is the base)")
    parser.add_argument("--builds", type=int, default=8, help="builds submitted at once per worker count")
    parser.add_argument("--latency-ms", type=float, default=300.0, help="the judge server's latency per call")
    parser.add_argument("--partitions", type=int, default=0, help="partitions per topic (default: largest N)")
    parser.add_argument("--cold", default="", help="worker counts also measured with cold workers (no warm-up)")
    args, _ = parser.parse_known_args()  # scripts/bench.py passes its own filter words
    counts = [int(n) for n in args.workers.split(",")]
    cold_counts = [int(n) for n in args.cold.split(",") if n]
    partitions = args.partitions or max(counts + cold_counts)
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} (wall times stretch when "
          f"the cores are shared)\nworld: {WORLD_NAME}\n{args.builds} builds with LLM judges per worker count, "
          f"judge latency {args.latency_ms:.0f} ms per call, {partitions} partitions per topic", flush=True)
    with tempfile.TemporaryDirectory(prefix="bench-scale-out-") as tmp:
        work = Path(tmp)
        s3, kafka = start_seaweedfs(work / "servers"), start_tansu(work / "servers")
        try:
            with slow_llm_judge(args.latency_ms / 1000.0) as judge:
                runs = []
                for n, cold in [(n, False) for n in counts] + [(n, True) for n in cold_counts]:
                    run = measure(n, args.builds, partitions, s3, kafka, judge, work, cold)
                    runs.append(run.figures(args.builds))
                    print(f"  {n} {'cold ' if cold else ''}workers: {runs[-1]['builds_per_min']:.2f} builds/min "
                          f"({runs[-1]['seconds']:.1f} s, {len(run.failed)} failed)", flush=True)
        finally:
            kafka.process.stop()
            s3.process.stop()
    # A cold run is measured against the cold run of the base count when there is one, else the warm base.
    cold_base = next((f for f in runs if not f["warm_up"] and f["workers"] == counts[0]), runs[0])
    for figures in runs:
        base = runs[0] if figures["warm_up"] else cold_base
        per_worker = base["builds_per_min"] / base["workers"]
        figures["baseline"] = f"{base['workers']} {'warm' if base['warm_up'] else 'cold'} worker(s)"
        figures["ratio"] = round(figures["builds_per_min"] / base["builds_per_min"], 3) if per_worker else None
        figures["efficiency"] = round(figures["builds_per_min"] / (figures["workers"] * per_worker), 3) \
            if per_worker else None
    met = all(f["efficiency"] is not None and f["efficiency"] >= GOAL_EFFICIENCY for f in runs if f["warm_up"])
    print(f"\n{'workers':>9} {'builds/min':>10} {'ratio':>6} {'efficiency':>10} {'after fill':>10} {'s':>7} "
          f"{'first s':>7} {'failed':>6} {'LLM calls/build':>15} {'build CPU s':>11} {'builds per worker':>18}  "
          "peak RSS per worker (MiB)")
    for f in runs:
        fill = f"{f['after_fill_builds_per_min']:.2f}" if f["after_fill_builds_per_min"] else "-"
        name = f"{f['workers']}{'' if f['warm_up'] else ' cold'}"
        print(f"{name:>9} {f['builds_per_min']:>10.2f} {f['ratio'] or 0:>6.2f} {f['efficiency'] or 0:>10.2f} "
              f"{fill:>10} {f['seconds']:>7.1f} {f['first_completion_s']:>7.1f} {f['failed']:>6} "
              f"{f['llm_calls_per_build']:>15.1f} {sum(f['worker_build_cpu_s']):>11.1f} "
              f"{'/'.join(str(b) for b in f['builds_per_worker']):>18}  "
              f"{', '.join(f'{r:.0f}' for r in f['worker_peak_rss_mib'])}")
    print(f"goal: efficiency >= {GOAL_EFFICIENCY} at every N (warm workers): {'met' if met else 'NOT met'}")
    result = {"benchmark": "scale_out", "date": datetime.now(UTC).isoformat(timespec="seconds"),
              "machine": machine_info(),
              "world": WORLD_NAME, "builds": args.builds, "latency_ms": args.latency_ms, "partitions": partitions,
              "baseline": f"{counts[0]} worker(s)", "goal_efficiency": GOAL_EFFICIENCY, "goal_met": met, "runs": runs}
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(f"written to {RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
