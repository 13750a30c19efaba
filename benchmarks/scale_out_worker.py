"""One build worker process of the scale-out benchmark: every build stage (a consumer thread each, as
`scicustom worker` runs them) on the real Kafka and S3 servers, the synthetic world with the LLM
judges answered through litellm by the benchmark's slow judge server. The stages share one world
cache (app/build/world_cache.py), as `scicustom worker` does with ctx.world_cache().

    python benchmarks/scale_out_worker.py ENDPOINT ACCESS SECRET BUCKET BOOTSTRAP PREFIX API_BASE CACHE_DIR [cold]

Before consuming it loads the LLM client as `scicustom worker` does (LiteLLMAdapter.warm_up); with
`cold` it does not, and its first build pays for the import (the baseline of that warm-up).

Like tests/chaos/synthetic_worker.py, with LLM judges; SIGTERM drains it. Each process keeps its own
LLM response cache (the adapter's, in CACHE_DIR), so no worker sees another's answers.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from pathlib import Path

# A module of this folder, run as a script (a PyPI package, pysbd, installs a `benchmarks` package).
from llm_judged_world import LLMJudgedSyntheticWorlds

from scicustom.adapters.kafka_bus import KafkaEventBus
from scicustom.adapters.litellm_llm import LiteLLMAdapter
from scicustom.adapters.llm_response_cache import LLMResponseCache
from scicustom.adapters.minio_store import MinioObjectStore
from scicustom.app.build.build_records import BUILD_STAGES
from scicustom.app.build.world_cache import WorldCache
from scicustom.builds.worker import BuildStageHandler
from scicustom.workers.stage_consumer import StageWorker, WorkerOptions
from scicustom.workers.topics import Topics
from tests.unit.workers.conftest import StubContext, StubSettings

# The product's defaults (WorkerOptions, LiteLLMAdapter), with a shorter outage budget and LLM timeout.
OPTIONS = WorkerOptions(outage_budget_s=120.0)
LLM_TIMEOUT_S = 30.0


def main(argv: list[str]) -> None:
    if len(argv) < 8 or argv[8:] not in ([], ["cold"]):
        raise SystemExit(__doc__)
    endpoint, access, secret, bucket, bootstrap, prefix, api_base, cache_dir = argv[:8]
    if not argv[8:]:
        LiteLLMAdapter.warm_up()
    store = MinioObjectStore.connect(endpoint, access, secret, bucket)
    ctx = StubContext(store, KafkaEventBus(bootstrap), StubSettings(topic_prefix=prefix))  # type: ignore[arg-type]
    llm = LiteLLMAdapter(LLMResponseCache(Path(cache_dir) / f"llm-cache-{os.getpid()}.sqlite"),
                         api_base=api_base, api_key="bench", timeout_s=LLM_TIMEOUT_S)
    synthetic = LLMJudgedSyntheticWorlds(llm)
    worlds = WorldCache(lambda: {"index": "synthetic"},
                        lambda requirement, seed, jury, progress: synthetic.get(requirement, seed, jury))
    topics, stop = Topics(prefix), threading.Event()
    signal.signal(signal.SIGTERM, lambda signum, frame: stop.set())
    workers = [StageWorker(ctx.event_bus, topics, BuildStageHandler(stage, ctx, topics, worlds), OPTIONS)  # type: ignore[arg-type]
               for stage in BUILD_STAGES]
    threads = [threading.Thread(target=worker.run, args=(stop,), name=worker.stage) for worker in workers]
    for thread in threads:
        thread.start()
    print("consuming", flush=True)
    for thread in threads:
        thread.join()
    ctx.event_bus.close()


if __name__ == "__main__":
    main(sys.argv[1:])
