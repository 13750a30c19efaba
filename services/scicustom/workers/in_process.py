"""Stage workers in threads of this process until a condition holds: how the embedded profile runs
an event-driven pipeline (on the in-process bus) with the very handlers the Kafka workers run."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence

from scicustom.ports import EventBus
from scicustom.workers.stage_consumer import StageHandler, StageWorker, WorkerOptions
from scicustom.workers.topics import Topics


def run_until(bus: EventBus, topics: Topics, handlers: Sequence[StageHandler], until: Callable[[], bool],
              timeout_s: float, options: WorkerOptions | None = None, check_every_s: float = 0.05) -> bool:
    """Runs one worker per handler until `until()` holds or `timeout_s` passes; whether it held."""
    # A run of bad papers is normal input here, not a broken worker: no breaker.
    options = options or WorkerOptions(max_attempts=2, backoff_s=0.1, breaker_threshold=10**9, poll_timeout_s=0.05)
    workers = [StageWorker(bus, topics, handler, options) for handler in handlers]
    stop = threading.Event()
    threads = [threading.Thread(target=w.run, args=(stop,), name=f"stage-{w.stage}", daemon=True) for w in workers]
    for thread in threads:
        thread.start()
    deadline = time.monotonic() + timeout_s
    try:
        while not until() and time.monotonic() < deadline:
            time.sleep(check_every_s)
    finally:
        stop.set()
        for thread in threads:
            thread.join()
    return until()
