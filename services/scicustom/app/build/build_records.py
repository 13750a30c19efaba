"""Where a build lives in the object store, and its state read back from there.

  builds/<id>/spec.json               the request (BuildSpec), written by BuildService
  builds/<id>/stages/<stage>.json     each stage's record (core/build/stage_records.py), canonical JSON
  builds/<id>/timings/<stage>.json    the stage's wall time on its worker
  builds/<id>/cancel.json             CancelBuild asked the build to stop
  builds/<id>/failed.json             why it stopped (code, field, reason, stage)
  builds/<id>/output/<file>           the files of a finished build; manifest.json lists them
Every key is written once with deterministic bytes, so a repeated stage rewrites equal bytes.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Protocol

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


def new_build_id(request_id: str = "") -> str:
    """Sortable by creation time (newest last); a request id gives a stable suffix."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S%f")
    suffix = hashlib.sha256(request_id.encode()).hexdigest()[:8] if request_id else secrets.token_hex(4)
    return f"b{stamp}-{suffix}"


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
    def __init__(self, store: ObjectStore, build_id: str) -> None:
        self.store = store
        self.build_id = build_id
        self.root = f"{PREFIX}{build_id}/"

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
        state = BuildState(self.build_id, "queued", spec["created"], spec, stages)
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


def list_build_ids(store: ObjectStore) -> list[str]:
    """Every build id, oldest first (ids sort by creation time)."""
    ids = {key[len(PREFIX):].split("/", 1)[0] for key in store.list_keys(PREFIX) if key.endswith("/spec.json")}
    return sorted(ids)
