"""The reaper's events (app/build/reaper.py decides): a requeued build's pending stage gets the event
it consumes again, a build given up on is announced as build.failed, like a stage worker would."""

from __future__ import annotations

import logging
import threading

from scicustom.app.build.build_records import BUILD_STAGES, StoredObject
from scicustom.app.build.reaper import BuildReaper, Reaped, Requeue
from scicustom.events.v1 import events_pb2 as ev
from scicustom.ports import EventBus
from scicustom.workers.envelopes import envelope, publish
from scicustom.workers.topics import BUILD_FAILED, BUILD_REQUESTED, Topics, published_type

log = logging.getLogger(__name__)


def announce(bus: EventBus, topics: Topics, action: Requeue | Reaped) -> None:
    if isinstance(action, Reaped):
        body = ev.BuildFailed(stage=action.stage, code=action.code, field=action.field, reason=action.reason)
        message = envelope(BUILD_FAILED, build_id=action.build_id, tenant=action.tenant, build_failed=body)
        topic = topics.of(BUILD_FAILED)
    elif action.stage == BUILD_STAGES[0]:
        message = envelope(BUILD_REQUESTED, build_id=action.build_id, tenant=action.tenant,
                           build_requested=ev.BuildRequested(spec=_ref(action.predecessor)))
        topic = topics.of(BUILD_REQUESTED)
    else:
        previous = BUILD_STAGES[BUILD_STAGES.index(action.stage) - 1]
        kind = published_type(previous)
        done = ev.StageCompleted(stage=previous, artifact=_ref(action.predecessor), seconds=action.seconds)
        message = envelope(kind, build_id=action.build_id, tenant=action.tenant, stage_completed=done)
        topic = topics.of(kind)
    publish(bus, topic, action.build_id, message)


def sweep_once(reaper: BuildReaper, bus: EventBus, topics: Topics) -> list[Requeue | Reaped]:
    """One pass: every stalled build requeued or failed, its events flushed."""
    actions = reaper.sweep()
    for action in actions:
        announce(bus, topics, action)
        log.warning("reaper: %s", action)
    bus.flush()
    return actions


def run_reaper(reaper: BuildReaper, bus: EventBus, topics: Topics, stop: threading.Event, interval_s: float) -> None:
    """Sweeps every `interval_s` until `stop`; a failed sweep (an outage) is logged and tried again."""
    while not stop.is_set():
        try:
            sweep_once(reaper, bus, topics)
        except Exception:
            log.exception("reaper: sweep failed; trying again in %.0f s", interval_s)
        stop.wait(interval_s)


def _ref(stored: StoredObject) -> ev.ArtifactRef:
    return ev.ArtifactRef(key=stored.key, sha256=stored.sha256, size_bytes=stored.size_bytes)
