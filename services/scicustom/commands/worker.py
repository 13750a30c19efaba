"""`scicustom worker <stage> [<stage> ...]`: Kafka stage workers, one consumer thread per stage.

SIGTERM drains: each stage finishes and commits its in-flight record, then leaves its group.
The process serves gRPC health (NOT_SERVING once draining or when a breaker trips, and while a
stage's poll loop has not come back within SCICUSTOM_WORKER_LIVENESS_DEADLINE_S: workers/liveness.py)
so pods can probe it like the services. A build or paper worker loads the LLM client (litellm)
before its consumers join their groups (SCICUSTOM_WORKER_WARM_UP=false skips it).
Exit code 3 means a breaker tripped, 4 that a stage's consumer failed.
Prometheus metrics (per-stage outcomes, times, retries, consumer lag) are served on
SCICUSTOM_METRICS_PORT (telemetry/metrics_endpoint.py).
"""

from __future__ import annotations

import argparse
import importlib
import logging
import signal
import threading
import time
from typing import TYPE_CHECKING, Any

from scicustom.app.build.build_records import BUILD_STAGES
from scicustom.core.errors import InvalidInput
from scicustom.workers.topics import INGEST_STAGES, PAPER_STAGES, STAGES, STANDING_STAGES

if TYPE_CHECKING:
    from scicustom.bootstrap import Context

log = logging.getLogger(__name__)


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser("worker", help="run Kafka stage workers (build and ingestion pipelines)")
    parser.add_argument("stages", nargs="+", metavar="stage", help=f"one or more of: {', '.join(STAGES)}")
    parser.add_argument("--health-port", type=int, default=None,
                        help="gRPC health port (default SCICUSTOM_GRPC_PORT; 0 picks a free one)")
    parser.set_defaults(handler=run_workers)


# Pipeline -> the edge module whose `stage_handlers(ctx, stages, topics)` serves its stages, imported
# only for the stages asked for (as `scicustom service` imports servicers by name).
STAGE_WORKERS = {"build": ("scicustom.builds.worker", BUILD_STAGES),
                 "ingest": ("scicustom.ingest.worker", INGEST_STAGES),
                 "papers": ("scicustom.papers.worker", PAPER_STAGES),
                 "standing": ("scicustom.builds.standing_worker", STANDING_STAGES)}


# Pipelines whose stages call LLMs (the build's judges and MCQ writer, the papers' extractors).
LLM_PIPELINES = ("build", "papers")


def calls_llms(stages: list[str]) -> bool:
    return any(s in STAGE_WORKERS[p][1] for p in LLM_PIPELINES for s in stages)


def warm_up(ctx: Context, stages: list[str]) -> float | None:
    """Seconds spent loading the LLM client, or None when these stages need none or the settings
    turn warm-up off. Done before any consumer joins its group: no partition waits on a cold
    process, and an autoscaled worker's first build runs at the speed of its later ones."""
    if not ctx.settings.worker_warm_up or not calls_llms(stages):
        return None
    started = time.perf_counter()
    ctx.warm_up_llm_client()
    return time.perf_counter() - started


def stage_handlers(ctx: Context, stages: list[str]) -> list[Any]:
    from scicustom.workers.topics import Topics

    topics = Topics(ctx.settings.topic_prefix)
    handlers: list[Any] = []
    for module_name, pipeline_stages in STAGE_WORKERS.values():
        wanted = [s for s in stages if s in pipeline_stages]
        if wanted:
            handlers += importlib.import_module(module_name).stage_handlers(ctx, wanted, topics)
    return handlers


def consume_stage(worker: Any, stop: threading.Event) -> int:
    """Runs one stage's loop; a consumer that raises (broker gone, fatal client error) ends with
    EXIT_CONSUMER_FAILED instead of a silently dead thread in a process that still looks healthy."""
    from scicustom.workers.stage_consumer import EXIT_CONSUMER_FAILED

    try:
        return int(worker.run(stop))
    except Exception:
        log.exception("worker %s stopped: its consumer failed", worker.stage)
        return EXIT_CONSUMER_FAILED


def run_workers(args: argparse.Namespace, ctx: Context) -> int:
    unknown = [s for s in args.stages if s not in STAGES]
    if unknown:
        raise InvalidInput("stage", f"{', '.join(unknown)} is not one of {', '.join(STAGES)}")
    if len(set(args.stages)) != len(args.stages):
        raise InvalidInput("stage", "a stage is named twice")
    from scicustom.grpc_server.server import dump_stacks_on_sigusr1, start_server
    from scicustom.telemetry.metrics_endpoint import serve_metrics
    from scicustom.telemetry.tracing_setup import configure_tracing, shutdown_tracing
    from scicustom.workers.liveness import WorkerHealth
    from scicustom.workers.stage_consumer import EXIT_DRAINED, StageWorker, WorkerOptions
    from scicustom.workers.topics import Topics

    settings = ctx.settings
    configure_tracing(f"scicustom-worker-{'-'.join(args.stages)}")
    port = settings.grpc_port if args.health_port is None else args.health_port
    server, health, bound = start_server([], settings.grpc_host, port,
                                         max_message_bytes=settings.grpc_max_message_bytes)
    metrics = serve_metrics(settings)
    options = WorkerOptions(settings.worker_max_attempts, settings.worker_backoff_s, settings.worker_breaker_threshold,
                            outage_budget_s=settings.worker_outage_budget_s,
                            max_backoff_s=settings.worker_max_backoff_s)
    handlers = stage_handlers(ctx, args.stages)
    warmed_s = warm_up(ctx, args.stages)
    if warmed_s is not None:
        log.info("LLM client loaded in %.1f s", warmed_s)
    workers = [StageWorker(ctx.event_bus, Topics(settings.topic_prefix), h, options) for h in handlers]
    names = {w.stage: f"scicustom.worker.{w.stage}" for w in workers}  # health service per stage
    # Each stage NOT_SERVING while its poll loop is late, and for good once draining or failed.
    liveness = WorkerHealth(health, {names[w.stage]: w.heartbeat for w in workers}, settings.liveness_deadline_s)
    stop = threading.Event()
    codes: dict[str, int] = {}

    def drain(signum: int, frame: object) -> None:
        log.info("signal %d: draining", signum)
        liveness.stop_serving()
        stop.set()

    signal.signal(signal.SIGTERM, drain)
    signal.signal(signal.SIGINT, drain)
    dump_stacks_on_sigusr1()

    def consume(worker: StageWorker, name: str) -> None:
        code = codes[worker.stage] = consume_stage(worker, stop)
        if code != EXIT_DRAINED:
            liveness.stop_serving([name])
            stop.set()  # one failed stage stops the process; its pod restarts

    threads = [threading.Thread(target=consume, args=(w, names[w.stage]), name=f"worker-{w.stage}")
               for w in workers]
    liveness.start_serving()
    threading.Thread(target=liveness.watch, args=(stop,), name="worker-liveness", daemon=True).start()
    serving = f"health on port {bound}" + ("" if metrics is None else f", metrics on port {metrics.port}")
    print(f"workers {', '.join(args.stages)} running; {serving}", flush=True)
    for thread in threads:
        thread.start()
    while any(t.is_alive() for t in threads):
        for thread in threads:
            thread.join(timeout=0.5)
    ctx.event_bus.close()
    server.stop(grace=1.0)
    if metrics is not None:
        metrics.stop()
    shutdown_tracing()
    return max(codes.values(), default=EXIT_DRAINED)
