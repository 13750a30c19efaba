"""Worker liveness: a stage whose poll loop stops coming back reports NOT_SERVING, so Kubernetes
restarts the pod instead of leaving a consumer stuck (e.g. inside kafka-python's group join) in a
process that answers every health check.

Each StageWorker beats its Heartbeat whenever its loop comes back: a poll returned, a record was
handled and committed, an attempt failed. WorkerHealth owns the process's health service: a stage
whose last beat is older than the deadline is NOT_SERVING under its own name and makes the overall
status ("", what the chart's liveness probe asks) NOT_SERVING; both turn SERVING again when the loop
resumes. Draining or a failed stage ends serving for good (`stop_serving`), whatever the beats say.
"""

from __future__ import annotations

import logging
import sys
import threading
import time
import traceback
from collections.abc import Callable, Mapping

from grpc_health.v1 import health_pb2
from grpc_health.v1.health import HealthServicer

from scicustom.core.errors import InvalidInput

log = logging.getLogger(__name__)

SERVING = health_pb2.HealthCheckResponse.SERVING
NOT_SERVING = health_pb2.HealthCheckResponse.NOT_SERVING


class Heartbeat:
    """When a loop last came back, and on which thread (for the stack of a stuck one)."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._last = clock()  # a loop that never comes back at all is late from its start
        self.thread_id: int | None = None

    def beat(self) -> None:
        self._last = self._clock()  # one float store: no lock needed to read it from another thread
        self.thread_id = threading.get_ident()

    def age_s(self) -> float:
        return self._clock() - self._last


class WorkerHealth:
    def __init__(self, health: HealthServicer, heartbeats: Mapping[str, Heartbeat], deadline_s: float) -> None:
        """`heartbeats`: health service name (scicustom.worker.<stage>) -> that stage's heartbeat."""
        if deadline_s <= 0:
            raise InvalidInput("worker_liveness_deadline_s", "must be > 0")
        self.health = health
        self.heartbeats = dict(heartbeats)
        self.deadline_s = deadline_s
        self._lock = threading.Lock()  # a check never overwrites the final NOT_SERVING of stop_serving
        self._stopped = False
        self._late: set[str] = set()

    def start_serving(self) -> None:
        with self._lock:
            if not self._stopped:
                for name in ["", *self.heartbeats]:
                    self.health.set(name, SERVING)

    def stop_serving(self, names: list[str] | None = None) -> None:
        """NOT_SERVING for good: `names` (default every stage) and the overall status."""
        with self._lock:
            self._stopped = True
            for name in ["", *(self.heartbeats if names is None else names)]:
                self.health.set(name, NOT_SERVING)

    def check(self) -> set[str]:
        """Sets each stage's status from its heartbeat; returns the stages that are late."""
        late = {name for name, beat in self.heartbeats.items() if beat.age_s() > self.deadline_s}
        with self._lock:
            if self._stopped:
                return late
            for name in late - self._late:
                beat = self.heartbeats[name]
                log.error("%s: its poll loop has not come back for %.0f s (deadline %.0f s): NOT_SERVING%s",
                          name, beat.age_s(), self.deadline_s, _stack_of(beat.thread_id))
            for name in self._late - late:
                log.warning("%s: its poll loop is back: SERVING", name)
            for name in self.heartbeats:
                self.health.set(name, NOT_SERVING if name in late else SERVING)
            self.health.set("", NOT_SERVING if late else SERVING)
            self._late = late
        return late

    def watch(self, stop: threading.Event, interval_s: float | None = None) -> None:
        """Checks every `interval_s` (default a tenth of the deadline, at most 5 s) until `stop`."""
        interval = interval_s if interval_s is not None else min(max(self.deadline_s / 10, 0.01), 5.0)
        while not stop.wait(interval):
            self.check()


def _stack_of(thread_id: int | None) -> str:
    """Where the stuck loop is: the first thing to look at (e.g. ensure_active_group)."""
    frame = sys._current_frames().get(thread_id) if thread_id is not None else None
    return "" if frame is None else "; it is at:\n" + "".join(traceback.format_stack(frame))
