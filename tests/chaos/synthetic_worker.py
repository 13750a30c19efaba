"""A build stage worker process on the real Kafka and S3 servers with the synthetic world (no
corpus needed): `python -m tests.chaos.synthetic_worker ENDPOINT ACCESS SECRET BUCKET BOOTSTRAP PREFIX
STAGE[,STAGE...]`. The chaos tests SIGKILL and restart it."""

from __future__ import annotations

import signal
import sys
import threading

from scicustom.adapters.kafka_bus import KafkaEventBus
from scicustom.adapters.minio_store import MinioObjectStore
from scicustom.builds.worker import BuildStageHandler
from scicustom.workers.stage_consumer import StageWorker, WorkerOptions
from scicustom.workers.topics import Topics
from tests.unit.workers.conftest import StubContext, StubSettings, SyntheticWorlds

OPTIONS = WorkerOptions(max_attempts=3, backoff_s=0.2, poll_timeout_s=0.2, outage_budget_s=120.0, max_backoff_s=2.0)


def main(argv: list[str]) -> None:
    endpoint, access, secret, bucket, bootstrap, prefix, stages = argv
    ctx = StubContext(MinioObjectStore.connect(endpoint, access, secret, bucket),  # type: ignore[arg-type]
                      KafkaEventBus(bootstrap), StubSettings(topic_prefix=prefix))  # type: ignore[arg-type]
    topics, worlds, stop = Topics(prefix), SyntheticWorlds(), threading.Event()
    signal.signal(signal.SIGTERM, lambda signum, frame: stop.set())
    threads = [threading.Thread(target=StageWorker(ctx.event_bus, topics, BuildStageHandler(s, ctx, topics, worlds),
                                                   OPTIONS).run, args=(stop,)) for s in stages.split(",")]
    for thread in threads:
        thread.start()
    print("consuming", flush=True)
    for thread in threads:
        thread.join()


if __name__ == "__main__":
    main(sys.argv[1:])
