"""The reaper: builds whose heartbeat stopped (a worker died mid-stage and its event was lost, a
build.requested that never went out) are requeued, then failed.

A stage worker beats builds/<id>/heartbeat.json when it starts and finishes a stage (stages.py). A
build that has not ended and whose last sign of life (that beat, its last requeue, its creation) is
older than `timeout_s` is stalled: its pending stage's event is published again (the caller,
workers/build_reaper.py, does from the Requeue this returns; the stages are idempotent, so a build
that was merely slow repeats nothing), at most `max_requeues` times; after that the build is
failed with a reason. The count and time of requeues live in builds/<id>/requeues.json. One reaper
at a time (a single replica): two would count one stall twice.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from scicustom.app.build.build_records import (
    BUILD_STAGES,
    BuildRecords,
    BuildState,
    StoredObject,
    StoreHolder,
    list_build_ids,
    stored_object,
)
from scicustom.app.tenancy import LOCAL_TENANT, TENANTS_PREFIX
from scicustom.ports import ObjectStore


@dataclass(frozen=True)
class Requeue:
    """Publish again the event `stage` consumes: build.requested with the spec for the first stage,
    else the predecessor's stage-completed event with its record."""

    build_id: str
    tenant: str
    stage: str
    predecessor: StoredObject   # the spec, or the previous stage's record
    seconds: float              # the previous stage's wall time (0 for the spec)
    requeues: int               # this one included


@dataclass(frozen=True)
class Reaped:
    """A build failed for good: announce build.failed."""

    build_id: str
    tenant: str
    stage: str
    code: str
    field: str
    reason: str


class BuildReaper:
    def __init__(self, holder: StoreHolder, timeout_s: float, max_requeues: int,
                 now: Callable[[], datetime] = lambda: datetime.now(UTC)) -> None:
        self._holder = holder
        self.timeout_s = timeout_s
        self.max_requeues = max_requeues
        self._now = now

    @property
    def store(self) -> ObjectStore:
        return self._holder.store

    def sweep(self) -> list[Requeue | Reaped]:
        """One pass over every tenant's builds."""
        actions: list[Requeue | Reaped] = []
        for tenant in tenants(self.store):
            for build_id in list_build_ids(self.store, tenant):
                action = self.check(BuildRecords(self.store, build_id, tenant))
                if action is not None:
                    actions.append(action)
        return actions

    def check(self, records: BuildRecords) -> Requeue | Reaped | None:
        state = records.state()
        if state.terminal:
            return None
        requeued = records.read_json(records.requeues_key) if self.store.exists(records.requeues_key) else {}
        count = int(requeued.get("count", 0))
        now = self._now()
        idle_s = (now - self._last_sign_of_life(records, state, requeued)).total_seconds()
        if idle_s < self.timeout_s:
            return None
        stage = state.current_stage
        if count >= self.max_requeues:
            reason = (f"no progress for {idle_s:.0f} s after {count} requeue(s); "
                      "a worker of this stage died or the stage cannot finish")
            failure = records.record_failure(stage, "INTERNAL", reason)
            return Reaped(records.build_id, records.tenant, failure["stage"], failure["code"], failure["field"],
                          failure["reason"])
        records.write_json(records.requeues_key, {"count": count + 1, "at": now.isoformat(), "stage": stage})
        index = BUILD_STAGES.index(stage)
        if index == 0:
            return Requeue(records.build_id, records.tenant, stage, stored_object(self.store, records.spec_key),
                           0.0, count + 1)
        previous = BUILD_STAGES[index - 1]
        timing = records.timing_key(previous)
        seconds = float(records.read_json(timing)["seconds"]) if self.store.exists(timing) else 0.0
        return Requeue(records.build_id, records.tenant, stage,
                       stored_object(self.store, records.stage_key(previous)), seconds, count + 1)

    def _last_sign_of_life(self, records: BuildRecords, state: BuildState, requeued: dict[str, str]) -> datetime:
        moments = [datetime.fromisoformat(state.created)]
        if self.store.exists(records.heartbeat_key):
            moments.append(datetime.fromisoformat(records.read_json(records.heartbeat_key)["at"]))
        if "at" in requeued:
            moments.append(datetime.fromisoformat(requeued["at"]))
        return max(moments)


def tenants(store: ObjectStore) -> list[str]:
    """The implicit tenant and every tenant with a build."""
    found = {key[len(TENANTS_PREFIX):].split("/", 1)[0] for key in store.list_keys(TENANTS_PREFIX)
             if "/builds/" in key}
    return [LOCAL_TENANT, *sorted(found)]
