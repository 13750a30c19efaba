"""Where a build lives in the object store, and its state read back from there.

  builds/<id>/spec.json               the request (BuildSpec), written by BuildService
  builds/<id>/stages/<stage>.json     each stage's record (core/build/stage_records.py), canonical JSON
  builds/<id>/timings/<stage>.json    the stage's wall time on its worker
  builds/<id>/cancel.json             CancelBuild asked the build to stop
  builds/<id>/failed.json             why it stopped (code, field, reason, stage)
  builds/<id>/created/<stamp>.json    when a keyed build was asked for (its spec has no time, see below)
  builds/<id>/heartbeat.json          the last stage a worker started or finished, and when (reaper.py)
  builds/<id>/requeues.json           how often the reaper republished the build's pending event
  builds/<id>/output/<file>           the files of a finished build; manifest.json lists them
Every key is written once with deterministic bytes, so a repeated stage rewrites equal bytes.
A tenant's builds live under its prefix, `tenants/<tenant>/builds/<id>/...` (app/tenancy.py); the
implicit tenant of an unauthenticated platform keeps the layout above.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

from scicustom.app.tenancy import LOCAL_TENANT, tenant_prefix
from scicustom.core.errors import NotFound
from scicustom.ports import ObjectStore

PREFIX = "builds/"
REQUESTS_PREFIX = "build-requests/"
# The stages of a distributed build, in order; each stage worker leaves its record here.
BUILD_STAGES = ("vote", "candidates", "cutoff", "select", "generate", "complete")


class StoreHolder(Protocol):
    """Holds the object store and opens it on first use (the composition root's Context does), so
    a service or worker starts without reaching the store."""

    @property
    def store(self) -> ObjectStore: ...


@dataclass(frozen=True)
class StoredObject:
    """An object's key with the SHA-256 and size of its bytes (what events reference)."""

    key: str
    sha256: str
    size_bytes: int

    @classmethod
    def of(cls, key: str, data: bytes) -> StoredObject:
        return cls(key, hashlib.sha256(data).hexdigest(), len(data))


def put_object(store: ObjectStore, key: str, data: bytes) -> StoredObject:
    store.put_bytes(key, data)
    return StoredObject.of(key, data)


def stored_object(store: ObjectStore, key: str) -> StoredObject:
    return StoredObject.of(key, store.get_bytes(key))


# An id is one segment of every build key: a bounded, plain name (new_build_id makes 31 characters),
# so a caller's id cannot escape builds/, overflow a file name or an S3 key, or carry odd characters.
_BUILD_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")


def is_build_id(text: str) -> bool:
    return _BUILD_ID.fullmatch(text) is not None


_STAMP = "%Y%m%dT%H%M%S%f"
_STAMP_LEN = 21


def new_build_id() -> str:
    """Sortable by creation time (newest last)."""
    return f"b{datetime.now(UTC).strftime(_STAMP)}-{secrets.token_hex(4)}"


def keyed_build_id(tenant: str, request_id: str) -> str:
    """The build of an idempotency key: every CreateBuild with that key, racing or retried, on any
    replica, names (and writes) the same build, so two racing calls cannot make two builds."""
    return "r" + hashlib.sha256(f"{tenant}\x1f{request_id}".encode()).hexdigest()[:40]


def creation_stamp(moment: datetime | None = None) -> str:
    return (moment or datetime.now(UTC)).strftime(_STAMP)


@dataclass
class BuildState:
    build_id: str
    state: str                          # queued, running, succeeded, failed, cancelled
    created: str                        # ISO time
    spec: dict[str, Any]
    stages: list[tuple[str, bool, float]] = field(default_factory=list)  # stage, done, seconds
    error: str = ""
    error_field: str = ""
    files: list[dict[str, Any]] = field(default_factory=list)
    n_mcq: int = 0
    coverage: dict[str, Any] = field(default_factory=dict)   # status, thin_units, message (succeeded only)

    @property
    def terminal(self) -> bool:
        return self.state in ("succeeded", "failed", "cancelled")

    @property
    def stages_done(self) -> int:
        return sum(1 for _, done, _ in self.stages if done)

    @property
    def current_stage(self) -> str:
        """The first stage not done yet; empty once the build has ended."""
        return "" if self.terminal else next((s for s, done, _ in self.stages if not done), "")


class BuildRecords:
    def __init__(self, store: ObjectStore, build_id: str, tenant: str = LOCAL_TENANT) -> None:
        self.store = store
        self.build_id = build_id
        self.tenant = tenant
        self.root = f"{tenant_prefix(tenant)}{PREFIX}{build_id}/"

    # keys -------------------------------------------------------------------------------------
    @property
    def spec_key(self) -> str:
        return self.root + "spec.json"

    def stage_key(self, stage: str) -> str:
        return f"{self.root}stages/{stage}.json"

    def timing_key(self, stage: str) -> str:
        return f"{self.root}timings/{stage}.json"

    @property
    def cancel_key(self) -> str:
        return self.root + "cancel.json"

    @property
    def failed_key(self) -> str:
        return self.root + "failed.json"

    def created_key(self, stamp: str) -> str:
        return f"{self.root}created/{stamp}.json"

    @property
    def heartbeat_key(self) -> str:
        return self.root + "heartbeat.json"

    @property
    def requeues_key(self) -> str:
        return self.root + "requeues.json"

    def beat(self, stage: str, phase: str, at: datetime | None = None) -> None:
        """The build is alive: a worker started or finished `stage` (the reaper watches this)."""
        self.write_json(self.heartbeat_key, {"stage": stage, "phase": phase,
                                             "at": (at or datetime.now(UTC)).isoformat()})

    def output_key(self, name: str) -> str:
        return f"{self.root}output/{name}"

    @property
    def manifest_key(self) -> str:
        return self.output_key("manifest.json")

    # reading and writing -----------------------------------------------------------------------
    def exists(self) -> bool:
        return self.store.exists(self.spec_key)

    def read_json(self, key: str) -> Any:
        return json.loads(self.store.get_bytes(key))

    def write_json(self, key: str, record: Any) -> None:
        self.store.put_bytes(key, json.dumps(record, sort_keys=True, ensure_ascii=False, indent=1).encode())

    def stage_record(self, stage: str) -> Any:
        return self.read_json(self.stage_key(stage))

    def record_failure(self, stage: str, code: str, reason: str, field: str = "") -> dict[str, str]:
        failure = {"stage": stage, "code": code, "reason": reason, "field": field}
        if not self.store.exists(self.failed_key):  # the first failure is the one reported
            self.write_json(self.failed_key, failure)
        return dict(self.read_json(self.failed_key))

    def state(self) -> BuildState:
        if not self.exists():
            raise NotFound("build_id", f"no build {self.build_id!r}")
        spec = self.read_json(self.spec_key)
        present = set(self.store.list_keys(self.root))
        stages = []
        for stage in BUILD_STAGES:
            timing = self.timing_key(stage)
            seconds = float(self.read_json(timing)["seconds"]) if timing in present else 0.0
            done_key = self.manifest_key if stage == "complete" else self.stage_key(stage)
            stages.append((stage, done_key in present, seconds))
        state = BuildState(self.build_id, "queued", spec.get("created") or _created(self.root, present), spec,
                           stages)
        if self.manifest_key in present:
            manifest = self.read_json(self.manifest_key)
            state.state, state.files, state.n_mcq = "succeeded", manifest["files"], int(manifest["n_mcq"])
            state.coverage = dict(manifest.get("coverage", {}))
        elif self.failed_key in present:
            failure = self.read_json(self.failed_key)
            state.state = "cancelled" if failure["code"] == "CANCELLED" else "failed"
            state.error, state.error_field = f"{failure['stage']}: {failure['reason']}", failure["field"]
        elif any(done for _, done, _ in stages):
            state.state = "running"
        return state


def list_build_ids(store: ObjectStore, tenant: str = LOCAL_TENANT) -> list[str]:
    """Every build id of the tenant, oldest first (ids sort by creation time)."""
    prefix = f"{tenant_prefix(tenant)}{PREFIX}"
    keys = store.list_keys(prefix)
    ids = {key[len(prefix):].split("/", 1)[0] for key in keys if key.endswith("/spec.json")}
    # A time-stamped id sorts by its stamp; a keyed id by its earliest created/<stamp> marker.
    stamps = {build_id: build_id[1:1 + _STAMP_LEN] for build_id in ids if build_id.startswith("b")}
    for key in keys:
        build_id, _, rest = key[len(prefix):].partition("/")
        if build_id in ids and rest.startswith("created/"):
            stamp = rest[len("created/"):-len(".json")]
            stamps[build_id] = min(stamps.get(build_id, stamp), stamp)
    return sorted(ids, key=lambda build_id: (stamps.get(build_id, ""), build_id))


def active_build_ids(store: ObjectStore, tenant: str = LOCAL_TENANT) -> list[str]:
    """The tenant's queued and running builds: a spec, and neither a manifest nor failed.json yet.
    One listing of the tenant's keys answers it, without reading any build's records."""
    prefix = f"{tenant_prefix(tenant)}{PREFIX}"
    keys_by_build: dict[str, set[str]] = {}
    for key in store.list_keys(prefix):
        build_id, _, rest = key[len(prefix):].partition("/")
        keys_by_build.setdefault(build_id, set()).add(rest)
    ended = {"output/manifest.json", "failed.json"}
    return sorted(b for b, rests in keys_by_build.items() if "spec.json" in rests and not rests & ended)


def _created(root: str, present: set[str]) -> str:
    """A keyed build's creation time: its earliest created/<stamp> marker (racing calls may leave two)."""
    stamps = sorted(key[len(root) + len("created/"):-len(".json")] for key in present
                    if key.startswith(root + "created/"))
    moment = datetime.strptime(stamps[0], _STAMP).replace(tzinfo=UTC) if stamps else datetime.now(UTC)
    return moment.isoformat()
