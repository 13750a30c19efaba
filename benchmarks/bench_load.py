"""BuildService under load on loopback: do streams starve health and unary calls?

The server runs in a process of its own (its peak RSS and threads are measured, not the load
generator's): the real BuildService with the interceptors and capacity of `scicustom service`
(the settings' defaults), the embedded filesystem store and in-process bus, and one stage worker
thread per build stage on the tests' synthetic world (a build costs about a second, not minutes).

Load: 50 CreateBuild calls at once, then 200 WatchBuild streams on them (4 per build, over 10
connections; a refused stream retries after 0.5-1.5 s, as a client backing off would, until its
build ends), 4 GetBuild pollers, and a health Check every 100 ms from start to end. Reported:
p50/p99 latency of CreateBuild, GetBuild and health; health availability (answered SERVING within
1 s) and the longest time without such an answer; RESOURCE_EXHAUSTED counts; the server's peak RSS
and its thread count over time (bounded by the pool, whatever the load). Figures go to
benchmarks/results/load.json with the machine.

The same load on the server as it was before the limits (a pool of 8 threads, no limiter, no queue
bound) is the baseline, measured in the same run.

Run: python benchmarks/bench_load.py
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from machine_info import machine_info

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "services"))

import grpc  # noqa: E402
from grpc_health.v1 import health_pb2, health_pb2_grpc  # noqa: E402

from scicustom.builds.v1 import builds_pb2 as pb  # noqa: E402
from scicustom.builds.v1 import builds_pb2_grpc as pb_grpc  # noqa: E402

BUILDS = 50
STREAMS = 200
CONNECTIONS = 10
POLLERS = 4
HEALTH_EVERY_S = 0.1
HEALTH_DEADLINE_S = 1.0
RUN_LIMIT_S = 600.0
TEXT = "virology: virus capsid, viral genome and virus replication in the host cell"
RESULTS = ROOT / "benchmarks" / "results" / "load.json"
TERMINAL = {pb.BUILD_STATE_SUCCEEDED, pb.BUILD_STATE_FAILED, pb.BUILD_STATE_CANCELLED}


def serve(home: str, limited: bool) -> None:
    """The server process: prints its port, serves until its stdin closes. Not `limited`: the server
    as it was before the load limits (8 threads, no limiter, no queue bound), the baseline."""
    from scicustom.app.build.build_records import BUILD_STAGES
    from scicustom.bootstrap import Context
    from scicustom.builds.servicer import binding
    from scicustom.builds.worker import BuildStageHandler
    from scicustom.commands.service import server_interceptors
    from scicustom.config import Settings
    from scicustom.grpc_server.capacity import default_capacity
    from scicustom.grpc_server.concurrency_limits import ConcurrencyLimitInterceptor
    from scicustom.grpc_server.server import start_server
    from scicustom.workers.stage_consumer import StageWorker, WorkerOptions
    from scicustom.workers.topics import Topics
    from tests.support.synthetic_world import synthetic_world

    class OneWorld:
        """One world shared by the stages, as ctx.world_cache() shares one in a worker process."""

        def __init__(self) -> None:
            self.world = synthetic_world()

        def get(self, requirement: object, seed: int, jury: object) -> tuple[object, dict[str, object]]:
            return self.world, {"n_items": len(self.world.items), "corpus": "synthetic"}

    # One (implicit) tenant submits every build: its quota of active builds must not refuse them.
    ctx = Context(Settings.model_construct(home=Path(home), max_active_builds_per_tenant=BUILDS))
    topics = Topics(ctx.settings.topic_prefix)
    worlds = OneWorld()
    workers = [StageWorker(ctx.event_bus, topics, BuildStageHandler(stage, ctx, topics, worlds),  # type: ignore[arg-type]
                           WorkerOptions(poll_timeout_s=0.05)) for stage in BUILD_STAGES]
    stop = threading.Event()
    for worker in workers:
        threading.Thread(target=worker.run, args=(stop,), name=f"worker-{worker.stage}", daemon=True).start()
    capacity = default_capacity()
    interceptors = server_interceptors(capacity)
    if not limited:
        capacity = replace(capacity, max_workers=8, health_reserve=1, max_streams=1, max_queued=10**6)
        interceptors = [i for i in interceptors if not isinstance(i, ConcurrencyLimitInterceptor)]
    server, _, port = start_server([binding(ctx)], "127.0.0.1", 0, max_message_bytes=16 * 1024 * 1024,
                                   interceptors=interceptors, capacity=capacity)
    limits = {"max_streams": capacity.max_streams, "max_in_flight": capacity.max_in_flight,
              "watch_limit": capacity.stream_limit("/scicustom.builds.v1.BuildService/WatchBuild"),
              "max_queued": capacity.max_queued} if limited else {}
    print(json.dumps({"port": port, "max_workers": capacity.max_workers, **limits}), flush=True)
    sys.stdin.read()
    stop.set()
    server.stop(1.0).wait()


@dataclass
class Tally:
    """Latencies (s) and outcomes of one kind of call, from many threads."""

    latencies: list[float] = field(default_factory=list)
    codes: Counter[str] = field(default_factory=Counter)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, started: float, code: str) -> None:
        with self.lock:
            if code == "OK":
                self.latencies.append(time.perf_counter() - started)
            self.codes[code] += 1

    def summary(self) -> dict[str, object]:
        ordered = sorted(self.latencies)

        def quantile(q: float) -> float | None:
            return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))] * 1000, 2) if ordered else None
        return {"calls": sum(self.codes.values()), "p50_ms": quantile(0.5), "p99_ms": quantile(0.99),
                "max_ms": round(ordered[-1] * 1000, 2) if ordered else None, "codes": dict(self.codes)}


def code_of(call: grpc.RpcError) -> str:
    return call.code().name if hasattr(call, "code") else "UNKNOWN"


def proc_status(pid: int) -> dict[str, int]:
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM", "Threads"):
            fields[key] = int(value.split()[0])
    return fields


class Load:
    def __init__(self, port: int, pid: int) -> None:
        self.address = f"127.0.0.1:{port}"
        self.pid = pid
        # A local subchannel pool each: ten connections, as ten clients would have (channels with equal
        # arguments otherwise share one).
        self.channels = [grpc.insecure_channel(self.address, options=[("grpc.use_local_subchannel_pool", 1)])
                         for _ in range(CONNECTIONS)]
        self.health_channel = grpc.insecure_channel(self.address)
        self.done = threading.Event()
        self.create, self.get, self.health, self.watch = Tally(), Tally(), Tally(), Tally()
        self.health_answered = self.health_probes = 0
        self.serving_at: list[float] = []  # when each SERVING answer came
        self.open_streams = self.peak_open_streams = 0
        self.samples: list[dict[str, float]] = []
        self.lock = threading.Lock()
        self.build_ids: list[str] = []
        self.finished: set[str] = set()
        self.started = time.perf_counter()

    def stub(self, i: int) -> pb_grpc.BuildServiceStub:
        return pb_grpc.BuildServiceStub(self.channels[i % CONNECTIONS])

    def probe_health(self) -> None:
        stub = health_pb2_grpc.HealthStub(self.health_channel)
        while not self.done.is_set():
            started = time.perf_counter()
            self.health_probes += 1
            try:
                status = stub.Check(health_pb2.HealthCheckRequest(service=""), timeout=HEALTH_DEADLINE_S).status
                self.health.record(started, "OK" if status == health_pb2.HealthCheckResponse.SERVING else "NOT_SERVING")
                if status == health_pb2.HealthCheckResponse.SERVING:
                    self.health_answered += 1
                    self.serving_at.append(time.perf_counter())
            except grpc.RpcError as error:
                self.health.record(started, code_of(error))
            time.sleep(max(0.0, HEALTH_EVERY_S - (time.perf_counter() - started)))

    def sample_server(self) -> None:
        while not self.done.wait(0.5):
            status = proc_status(self.pid)
            self.samples.append({"t_s": round(time.perf_counter() - self.started, 1), "threads": status["Threads"],
                                 "rss_mib": round(status["VmRSS"] / 1024, 1), "open_streams": self.open_streams})

    def create_build(self, i: int, barrier: threading.Barrier) -> None:
        request = pb.CreateBuildRequest(requirement_text=TEXT, k1=2, k2=20, proxy_samples=10, seed=i,
                                        relevance_quantile=0.75, min_items=1, request_id=f"load-{i}")
        barrier.wait()
        while True:  # idempotent on request_id: a refused call is retried as it is
            started = time.perf_counter()
            try:
                build = self.stub(i).CreateBuild(request, timeout=30)
                self.create.record(started, "OK")
                with self.lock:
                    self.build_ids.append(build.build_id)
                return
            except grpc.RpcError as error:
                self.create.record(started, code_of(error))
                if error.code() != grpc.StatusCode.RESOURCE_EXHAUSTED:
                    return
                time.sleep(random.uniform(0.1, 0.5))

    def watch_build(self, i: int) -> None:
        build_id = self.build_ids[i % len(self.build_ids)]
        while build_id not in self.finished and not self.done.is_set():
            started = time.perf_counter()
            opened = False
            try:
                for progress in self.stub(i).WatchBuild(pb.WatchBuildRequest(build_id=build_id), timeout=RUN_LIMIT_S):
                    if not opened:
                        opened = True
                        with self.lock:
                            self.open_streams += 1
                            self.peak_open_streams = max(self.peak_open_streams, self.open_streams)
                    if progress.build.state in TERMINAL:
                        break
                self.watch.record(started, "OK")
                return
            except grpc.RpcError as error:
                self.watch.record(started, code_of(error))
                if error.code() != grpc.StatusCode.RESOURCE_EXHAUSTED:
                    return
                time.sleep(random.uniform(0.5, 1.5))
            finally:
                if opened:
                    with self.lock:
                        self.open_streams -= 1

    def poll_builds(self, k: int) -> None:
        i = k
        while len(self.finished) < len(self.build_ids) and not self.done.is_set():
            build_id = self.build_ids[i % len(self.build_ids)]
            i += POLLERS
            if build_id in self.finished:
                continue
            started = time.perf_counter()
            try:
                build = self.stub(i).GetBuild(pb.GetBuildRequest(build_id=build_id), timeout=10)
                self.get.record(started, "OK")
                if build.state in TERMINAL:
                    with self.lock:
                        self.finished.add(build_id)
            except grpc.RpcError as error:
                self.get.record(started, code_of(error))
            time.sleep(0.05)

    def run(self) -> dict[str, object]:
        background = [threading.Thread(target=self.probe_health, daemon=True),
                      threading.Thread(target=self.sample_server, daemon=True)]
        for thread in background:
            thread.start()
        barrier = threading.Barrier(BUILDS)
        creators = [threading.Thread(target=self.create_build, args=(i, barrier)) for i in range(BUILDS)]
        for thread in creators:
            thread.start()
        for thread in creators:
            thread.join()
        created_s = time.perf_counter() - self.started
        watchers = [threading.Thread(target=self.watch_build, args=(i,), daemon=True) for i in range(STREAMS)]
        pollers = [threading.Thread(target=self.poll_builds, args=(k,), daemon=True) for k in range(POLLERS)]
        for thread in watchers + pollers:
            thread.start()
        for thread in pollers:
            thread.join(max(1.0, RUN_LIMIT_S - (time.perf_counter() - self.started)))
        builds_s = time.perf_counter() - self.started
        for thread in watchers:
            thread.join(max(1.0, RUN_LIMIT_S - (time.perf_counter() - self.started)))
        time.sleep(1.0)  # the last samples, after the streams closed
        self.done.set()
        for thread in background:
            thread.join(5)
        peak_rss = proc_status(self.pid)["VmHWM"]
        threads = [s["threads"] for s in self.samples]
        return {
            "builds_created": len(self.build_ids), "builds_finished": len(self.finished),
            "create_all_s": round(created_s, 2), "all_builds_done_s": round(builds_s, 2),
            "create_build": self.create.summary(), "get_build": self.get.summary(),
            "watch_build": {**self.watch.summary(), "peak_open_streams_seen": self.peak_open_streams},
            "health": {**self.health.summary(), "probes": self.health_probes,
                       "availability_pct": round(100 * self.health_answered / max(self.health_probes, 1), 2),
                       "longest_without_serving_s": round(max(
                           (b - a for a, b in zip(self.serving_at, self.serving_at[1:], strict=False)),
                           default=0.0), 2)},
            "server_peak_rss_mib": round(peak_rss / 1024, 1),
            "server_threads": {"min": min(threads), "max": max(threads), "last": threads[-1]},
            "server_samples": self.samples,
        }


def measure(limited: bool) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="bench-load-") as home:
        server = subprocess.Popen([sys.executable, __file__, "--serve", home, "limited" if limited else "baseline"],
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT)
        try:
            assert server.stdout is not None and server.stdin is not None
            config = json.loads(server.stdout.readline())
            figures = Load(config["port"], server.pid).run()
        finally:
            if server.stdin is not None:
                server.stdin.close()
            server.wait(30)
    return {"server_capacity": {k: v for k, v in config.items() if k != "port"}, **figures}


def report(name: str, f: dict[str, Any]) -> None:
    print(f"-- {name}: server {f['server_capacity']}")
    print(f"builds: {f['builds_created']} created in {f['create_all_s']} s, {f['builds_finished']} finished "
          f"after {f['all_builds_done_s']} s")
    for call in ("create_build", "get_build", "health"):
        s = f[call]
        print(f"{call:>12}: p50 {s['p50_ms']} ms  p99 {s['p99_ms']} ms  max {s['max_ms']} ms  codes {s['codes']}")
    print(f" watch_build: codes {f['watch_build']['codes']} (peak open {f['watch_build']['peak_open_streams_seen']})")
    print(f"health availability (SERVING within {HEALTH_DEADLINE_S:.0f} s): {f['health']['availability_pct']} % "
          f"of {f['health']['probes']} probes; longest time without a SERVING answer "
          f"{f['health']['longest_without_serving_s']} s")
    print(f"server: peak RSS {f['server_peak_rss_mib']} MiB, threads {f['server_threads']}")


def main() -> None:
    runs = {"limited": measure(limited=True), "baseline_8_threads_no_limits": measure(limited=False)}
    result = {"benchmark": "load", "date": datetime.now(UTC).isoformat(timespec="seconds"),
              "machine": machine_info(grpc=grpc.__version__),
              "load": {"builds": BUILDS, "watch_streams": STREAMS, "connections": CONNECTIONS,
                       "get_build_pollers": POLLERS, "health_every_s": HEALTH_EVERY_S,
                       "health_deadline_s": HEALTH_DEADLINE_S},
              "runs": runs}
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    for name, figures in runs.items():
        report(name, figures)
    print(f"machine: {os.cpu_count()} cores; written to {RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"]:
        serve(sys.argv[2], limited=sys.argv[3] == "limited")
    else:
        main()
