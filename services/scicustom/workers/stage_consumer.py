"""The worker loop of one stage: decode -> handle with the core -> publish -> commit.

At-least-once: a record is committed only after its successors are published (the bus flushes
before it commits), so a worker killed mid-record leaves it to the next member of the group.
A failing record is retried with exponential backoff; after the last attempt it goes to the
stage's dead-letter topic with the error (and the handler may publish a failure event, e.g.
build.failed), and the loop moves on. An outage (transient_errors.py: broker, object store or index
unreachable or answering 5xx) is waited out with capped exponential backoff and jitter for up to
`outage_budget_s` before the record is given up on with a reason naming the outage; these waits do
not use up the attempts. If the handler cannot even record the failure (the store is still down),
the record is left uncommitted and delivered again (RecordUnsettled) rather than counted as handled
with its build RUNNING forever. A breaker stops the worker when every one of the last N
records was dead-lettered: something is wrong with the worker, not with the records.
Each record's outcome and time, the retries and the group's lag go to Prometheus (stage_metrics.py).
The loop beats a heartbeat each time it comes back; the worker's health turns NOT_SERVING when it
stops (liveness.py).
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from opentelemetry.trace import Span

from scicustom.events.v1 import events_pb2 as ev
from scicustom.ports import BusMessage, EventBus
from scicustom.telemetry.kafka_context import consumer_span
from scicustom.telemetry.metrics import PlatformMetrics
from scicustom.telemetry.redaction import redact
from scicustom.workers.envelopes import PoisonEvent, decode, publish
from scicustom.workers.liveness import Heartbeat
from scicustom.workers.stage_metrics import DEAD_LETTER, OK, StageMetrics
from scicustom.workers.topics import Topics
from scicustom.workers.transient_errors import is_transient

log = logging.getLogger(__name__)
EXIT_DRAINED = 0
EXIT_BREAKER = 3
EXIT_CONSUMER_FAILED = 4  # the bus raised outside any record's handling


class RecordUnsettled(Exception):
    """The record was given up on but its failure could not be recorded: it must not be committed."""


@dataclass(frozen=True)
class Outgoing:
    topic: str
    key: str
    envelope: ev.Envelope


class StageHandler(Protocol):
    stage: str

    def handle(self, event: ev.Envelope) -> list[Outgoing]:
        """Idempotent on the event: handling it twice publishes equal events and writes equal bytes."""
        ...

    def on_dead_letter(self, event: ev.Envelope, error: str) -> list[Outgoing]:
        """Events to publish once `event` is given up on (e.g. build.failed)."""
        ...


@dataclass(frozen=True)
class WorkerOptions:
    max_attempts: int = 3
    backoff_s: float = 0.5
    breaker_threshold: int = 5
    poll_timeout_s: float = 1.0
    outage_budget_s: float = 300.0  # how long transient infrastructure failures are retried
    max_backoff_s: float = 30.0     # the longest pause between two tries in an outage


@dataclass
class WorkerStats:
    handled: int = 0
    dead_lettered: int = 0
    retries: int = 0
    consecutive_dead: int = 0


class StageWorker:
    def __init__(self, bus: EventBus, topics: Topics, handler: StageHandler, options: WorkerOptions, *,
                 on_poll: Callable[[], None] = lambda: None, sleep: Callable[[float], None] = time.sleep,
                 metrics: PlatformMetrics | None = None, clock: Callable[[], float] = time.perf_counter) -> None:
        self.bus = bus
        self.topics = topics
        self.handler = handler
        self.options = options
        self.stats = WorkerStats()
        self._on_poll = on_poll
        self._sleep = sleep
        self._clock = clock
        self.metrics = StageMetrics(handler.stage, topics.group(handler.stage), metrics)
        self.heartbeat = Heartbeat()  # beaten each time the loop comes back (workers/liveness.py)

    @property
    def stage(self) -> str:
        return self.handler.stage

    def run(self, stop: threading.Event) -> int:
        """Consumes until `stop` is set (drains: the in-flight record is finished and committed) or
        the breaker trips. Returns EXIT_DRAINED or EXIT_BREAKER."""
        self.heartbeat.beat()
        consumer = self.bus.consumer(self.topics.group(self.stage), [self.topics.consumed_by(self.stage)])
        log.info("worker %s consuming %s", self.stage, self.topics.consumed_by(self.stage))
        try:
            while not stop.is_set():
                self._on_poll()
                records = consumer.poll(max_records=1, timeout_s=self.options.poll_timeout_s)
                self.heartbeat.beat()
                self.metrics.sample_lag(consumer)
                for record in records:
                    try:
                        self.process(record)
                    except RecordUnsettled as exc:
                        # Rejoin from the committed offsets, so the record comes again after a pause.
                        log.error("worker %s: %s; the record stays uncommitted", self.stage, exc)
                        consumer.close()
                        self._sleep(self.options.max_backoff_s)
                        consumer = self.bus.consumer(self.topics.group(self.stage),
                                                     [self.topics.consumed_by(self.stage)])
                        break
                    consumer.commit()
                    self.heartbeat.beat()
                    if self.tripped:
                        log.error("worker %s: breaker open after %d dead letters in a row", self.stage,
                                  self.stats.consecutive_dead)
                        return EXIT_BREAKER
            return EXIT_DRAINED
        finally:
            consumer.close()
            self.metrics.forget_lag()

    @property
    def tripped(self) -> bool:
        return self.stats.consecutive_dead >= self.options.breaker_threshold

    def process(self, record: BusMessage) -> None:
        """Handle one record completely: its successors or its dead letter are sent on return."""
        started = self._clock()
        with consumer_span(self.stage, record, group=self.topics.group(self.stage)) as span:
            outcome = self._handle(record, span)
            self.metrics.finished(outcome, self._clock() - started)

    def _handle(self, record: BusMessage, span: Span) -> str:
        """OK once the successors are sent, DEAD_LETTER once the dead letter is."""
        try:
            event = decode(record)
        except PoisonEvent as exc:
            self._dead_letter(record, redact(str(exc)), 1, None)
            return DEAD_LETTER
        span.set_attribute("scicustom.event_id", event.event_id)
        if event.build_id:
            span.set_attribute("scicustom.build_id", event.build_id)
        error = ""
        attempt = outages = 0
        outage_since: float | None = None
        while True:
            try:
                # Handling is idempotent, so an outage while publishing repeats the whole attempt;
                # flushing here keeps a broker outage inside the budget instead of failing the commit.
                self._send(self.handler.handle(event), record, event)
                self.bus.flush()
            except PoisonEvent as exc:
                self._dead_letter(record, redact(str(exc)), attempt + 1, event)
                return DEAD_LETTER
            except Exception as exc:  # an outage is waited out, any other failure retried, then dead-lettered
                error = redact(f"{type(exc).__name__}: {exc}".splitlines()[0])
                self.heartbeat.beat()  # a failed attempt is progress too: the loop is not stuck
                if is_transient(exc):
                    outage_since = self._clock() if outage_since is None else outage_since
                    waited = self._clock() - outage_since
                    if waited < self.options.outage_budget_s:
                        outages += 1
                        log.warning("worker %s: outage on %s (%.0f s of %.0f s budget): %s", self.stage,
                                    event.event_id, waited, self.options.outage_budget_s, error)
                        self._retry_pause(outages, self.options.outage_budget_s - waited)
                        continue
                    error = (f"outage: gave up after {waited:.0f} s of infrastructure failures "
                             f"(budget {self.options.outage_budget_s:.0f} s): {error}")
                    log.warning("worker %s: %s", self.stage, error, exc_info=True)
                    self._dead_letter(record, error, attempt + outages + 1, event)
                    return DEAD_LETTER
                attempt += 1
                log.warning("worker %s: attempt %d/%d on %s failed: %s", self.stage, attempt,
                            self.options.max_attempts, event.event_id, error, exc_info=True)
                if attempt < self.options.max_attempts:
                    self._retry_pause(attempt, None)
                    continue
                self._dead_letter(record, error, attempt + outages, event)
                return DEAD_LETTER
            self.stats.handled += 1
            self.stats.consecutive_dead = 0
            return OK

    def _retry_pause(self, retry: int, at_most: float | None) -> None:
        """Exponential backoff capped at max_backoff_s; in an outage with jitter (workers that lost
        the broker together do not come back in step) and never past the budget's end."""
        self.stats.retries += 1
        self.metrics.retried()
        pause = min(self.options.backoff_s * 2 ** (retry - 1), self.options.max_backoff_s)
        if at_most is not None:
            pause = min(pause * random.uniform(0.5, 1.0), max(at_most, 0.0))
        self._sleep(pause)

    def _send(self, outgoing: list[Outgoing], record: BusMessage, event: ev.Envelope | None) -> None:
        """A build's next events go out under the key its event came with: the build service dealt
        the build a lane (a key per partition), and the build keeps it to the end."""
        for out in outgoing:
            same_build = event is not None and event.build_id and out.key == event.build_id
            publish(self.bus, out.topic, record.key if same_build and record.key else out.key, out.envelope)

    def _dead_letter(self, record: BusMessage, error: str, attempts: int, event: ev.Envelope | None) -> None:
        """Records the failure first (e.g. the build's failed.json): if the store is down that raises
        RecordUnsettled and nothing is sent, so the redelivered record gets another go."""
        failure: list[Outgoing] = []
        if event is not None:
            try:
                failure = self.handler.on_dead_letter(event, error)
            except Exception as exc:
                if is_transient(exc):
                    raise RecordUnsettled(f"failure of {event.event_id} not recorded: {exc}") from exc
                log.exception("worker %s: failure of %s not recorded", self.stage, event.event_id)
        letter = ev.DeadLetter(stage=self.stage, topic=record.topic, partition=record.partition,
                               offset=record.offset, value=record.value, headers=dict(record.headers),
                               error=error[:2000], attempts=attempts)
        self.bus.send(self.topics.dead_letters(self.stage), letter.SerializeToString(), key=record.key,
                      headers=dict(record.headers))
        log.error("worker %s: dead-lettered %s@%d:%d after %d attempt(s): %s", self.stage, record.topic,
                  record.partition, record.offset, attempts, error)
        self.stats.dead_lettered += 1
        self.stats.consecutive_dead += 1
        try:
            self._send(failure, record, event)
        except Exception:  # the dead letter itself is already out
            log.exception("worker %s: failure event for %s not published", self.stage, record.key)
