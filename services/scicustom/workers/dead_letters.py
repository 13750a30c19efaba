"""Dead letters of a stage: list them, and redrive them to the topic they came from.

A redriven record keeps its key, value and headers and gains REDRIVEN_HEADER; if it dies again its
new dead letter carries that header (the stage consumer copies the headers), and a later redrive
skips it: a record that fails for good is redriven once, not in a loop. Listing reads with a group
of its own and commits nothing; redriving uses the stage's redrive group and commits what it
published (after flushing), so a second redrive does not send the same letters again.
`scicustom dlq` and BuildService.RedriveDeadLetters both check their arguments with
`dead_letter_query` and run the functions below.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from dataclasses import dataclass

from google.protobuf.message import DecodeError

from scicustom.core.errors import InvalidInput
from scicustom.events.v1 import events_pb2 as ev
from scicustom.ports import BusConsumer, BusMessage, EventBus
from scicustom.workers.topics import STAGES, Topics

REDRIVEN_HEADER = "scicustom-redriven"
DEFAULT_LIMIT = 100
MAX_LIMIT = 10_000
DEFAULT_WAIT_S = 5.0
MAX_WAIT_S = 60.0  # an RPC holds a server thread this long at most once the letters stop coming


@dataclass(frozen=True)
class DeadLetterQuery:
    stage: str
    limit: int
    wait_s: float


def dead_letter_query(stage: str, limit: int, wait_s: float,
                      fields: tuple[str, str, str] = ("stage", "limit", "wait_s")) -> DeadLetterQuery:
    """The arguments checked; `fields` names them as the caller knows them (CLI flags, RPC fields)."""
    stage_field, limit_field, wait_field = fields
    if stage not in STAGES:
        raise InvalidInput(stage_field, f"{stage[:40]!r} is not one of {', '.join(STAGES)}")
    if not 1 <= limit <= MAX_LIMIT:
        raise InvalidInput(limit_field, f"must be >= 1 and <= {MAX_LIMIT}")
    if not 0 < wait_s <= MAX_WAIT_S:
        raise InvalidInput(wait_field, f"must be > 0 and <= {MAX_WAIT_S:.0f}")
    return DeadLetterQuery(stage, limit, wait_s)


@dataclass(frozen=True)
class DeadLetterSummary:
    stage: str
    topic: str        # where the record came from
    partition: int
    offset: int
    attempts: int
    error: str
    redriven: bool    # it was redriven before and died again


@dataclass(frozen=True)
class RedriveResult:
    redriven: list[DeadLetterSummary]
    skipped: list[DeadLetterSummary]  # died again after a redrive, or not a dead letter at all


def list_dead_letters(bus: EventBus, topics: Topics, stage: str, limit: int,
                      wait_s: float = 5.0) -> list[DeadLetterSummary]:
    consumer = bus.consumer(f"{topics.prefix}-dlq-list-{uuid.uuid4().hex[:12]}", [topics.dead_letters(stage)])
    try:
        return [_summary(stage, record) for record in _records(consumer, limit, wait_s)]
    finally:
        consumer.close()


def redrive_dead_letters(bus: EventBus, topics: Topics, stage: str, limit: int,
                         wait_s: float = 5.0) -> RedriveResult:
    consumer = bus.consumer(f"{topics.group(stage)}-redrive", [topics.dead_letters(stage)])
    redriven: list[DeadLetterSummary] = []
    skipped: list[DeadLetterSummary] = []
    try:
        for record in _records(consumer, limit, wait_s):
            summary = _summary(stage, record)
            letter = _letter(record)
            if letter is None or summary.redriven or not letter.topic:
                skipped.append(summary)
                continue
            bus.send(letter.topic, letter.value, key=record.key,
                     headers={**dict(letter.headers), REDRIVEN_HEADER: "1"})
            redriven.append(summary)
        consumer.commit()  # flushes the redriven records first
    finally:
        consumer.close()
    return RedriveResult(redriven, skipped)


def _records(consumer: BusConsumer, limit: int, wait_s: float) -> Iterator[BusMessage]:
    """Up to `limit` records; stops once nothing came for `wait_s` (a group join takes a moment)."""
    taken = 0
    quiet_since = time.monotonic()
    while taken < limit and time.monotonic() - quiet_since < wait_s:
        batch = consumer.poll(max_records=min(limit - taken, 100), timeout_s=0.5)
        if batch:
            quiet_since = time.monotonic()
        for record in batch:
            taken += 1
            yield record


def _letter(record: BusMessage) -> ev.DeadLetter | None:
    letter = ev.DeadLetter()
    try:
        letter.ParseFromString(record.value)
    except DecodeError:
        return None
    return letter


def _summary(stage: str, record: BusMessage) -> DeadLetterSummary:
    letter = _letter(record) or ev.DeadLetter(error="not a dead letter")
    redriven = REDRIVEN_HEADER in record.headers or REDRIVEN_HEADER in letter.headers
    return DeadLetterSummary(stage, letter.topic, letter.partition, letter.offset, letter.attempts, letter.error,
                             redriven)
