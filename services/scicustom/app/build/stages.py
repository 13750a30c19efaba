"""One stage of a distributed build: read the earlier stages' records from the object store, run
this stage's step of the core pipeline, store its record (the Kafka stage workers' use case).

Idempotent on (build id, stage): a stage whose record exists is not computed again, so a worker
killed between writing and committing costs a redelivery, never a second, different result.
The build's tenant (from its event) says under which prefix its records live (app/tenancy.py).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Protocol

from scicustom.app.build.build_records import (
    BUILD_STAGES,
    BuildRecords,
    StoredObject,
    StoreHolder,
    is_build_id,
    put_object,
    stored_object,
)
from scicustom.app.build.build_spec import BuildSpec
from scicustom.app.build.output_files import render_files
from scicustom.app.build.request import JuryOptions
from scicustom.app.build.since import previous_stored_build, with_diff
from scicustom.app.tenancy import LOCAL_TENANT, is_tenant
from scicustom.core.build.pipeline import BuildPipeline, BuildWorld
from scicustom.core.build.stage_records import CandidateList, CutoffStage, Generated, Selection, VotedUnits
from scicustom.core.canonical_json import canonical_bytes
from scicustom.core.errors import InvalidInput, PreconditionFailed
from scicustom.core.requirement import Requirement
from scicustom.ports import ObjectStore


class Worlds(Protocol):
    """Where a stage gets its world (world_cache.WorldCache; tests give a synthetic one)."""

    def get(self, requirement: Requirement, seed: int, jury: JuryOptions) -> tuple[BuildWorld, dict[str, Any]]: ...


@dataclass(frozen=True)
class StageCompleted:
    stage: str
    record: StoredObject
    seconds: float


@dataclass(frozen=True)
class BuildCompleted:
    manifest: StoredObject
    n_mcq: int


@dataclass(frozen=True)
class BuildFailed:
    """The build's first failure (a later one is not reported again)."""

    stage: str
    code: str      # INVALID_ARGUMENT, FAILED_PRECONDITION, CANCELLED, INTERNAL
    field: str
    reason: str


# What a stage announces; None: the build had already failed or was cancelled, and said so.
StageOutcome = StageCompleted | BuildCompleted | BuildFailed | None


class BuildStage:
    def __init__(self, stage: str, holder: StoreHolder, worlds: Worlds) -> None:
        if stage not in BUILD_STAGES:
            raise ValueError(f"{stage!r} is not a build stage")
        self.stage = stage
        self._holder = holder
        self.worlds = worlds

    @property
    def store(self) -> ObjectStore:
        return self._holder.store

    def knows(self, build_id: str, tenant: str = LOCAL_TENANT) -> bool:
        return (is_build_id(build_id) and (tenant == "" or is_tenant(tenant))
                and BuildRecords(self.store, build_id, tenant).exists())

    def run(self, build_id: str, tenant: str = LOCAL_TENANT) -> StageOutcome:
        records = BuildRecords(self.store, build_id, tenant)
        if self.store.exists(records.failed_key):
            return None  # failed or cancelled earlier; its failure is already announced
        if self.store.exists(records.cancel_key):
            return self._failed(records, "CANCELLED", "cancelled by CancelBuild")
        stored = records.read_json(records.spec_key)
        spec = BuildSpec.from_record(stored["spec"])
        try:
            if self.stage == "complete":
                return self._complete(records, spec, str(stored.get("since_build_id", "")), tenant)
            if not self.store.exists(records.stage_key(self.stage)):
                # Beats only when computing: the reaper (reaper.py) requeues a build whose beats stop,
                # and a redelivered stage whose record exists rewrites nothing.
                records.beat(self.stage, "started")
                started = time.perf_counter()
                record = self._compute(records, spec)
                records.write_json(records.timing_key(self.stage),
                                   {"seconds": round(time.perf_counter() - started, 3)})
                put_object(self.store, records.stage_key(self.stage), canonical_bytes(record))
                records.beat(self.stage, "done")
        except InvalidInput as exc:
            return self._failed(records, "INVALID_ARGUMENT", exc.problem, exc.field)
        except PreconditionFailed as exc:
            return self._failed(records, "FAILED_PRECONDITION", str(exc))
        seconds = float(records.read_json(records.timing_key(self.stage))["seconds"])
        return StageCompleted(self.stage, stored_object(self.store, records.stage_key(self.stage)), seconds)

    def fail(self, build_id: str, code: str, reason: str, tenant: str = LOCAL_TENANT) -> BuildFailed | None:
        """Fail the build (a dead-lettered event); None for a build that does not exist or has
        succeeded (a damaged or forged copy of one of its events fails nothing)."""
        if not self.knows(build_id, tenant):
            return None
        records = BuildRecords(self.store, build_id, tenant)
        if self.store.exists(records.manifest_key):
            return None
        return self._failed(records, code, reason)

    # -- the stages --------------------------------------------------------------------------------
    def _pipeline(self, spec: BuildSpec) -> tuple[BuildPipeline, Requirement]:
        requirement = spec.validate()
        world, _ = self.worlds.get(requirement, spec.params.seed, spec.jury)
        return BuildPipeline(world), requirement

    def _compute(self, records: BuildRecords, spec: BuildSpec) -> dict[str, Any]:
        pipeline, requirement = self._pipeline(spec)
        params = spec.params
        if self.stage == "vote":
            return pipeline.stage_vote(requirement, params).to_record()
        voted = VotedUnits.from_record(records.stage_record("vote"))
        if self.stage == "candidates":
            return pipeline.stage_candidates(requirement, params, voted).to_record()
        listed = CandidateList.from_record(records.stage_record("candidates"))
        if self.stage == "cutoff":
            return pipeline.stage_cutoff(requirement, params, voted, listed).to_record()
        if self.stage == "select":
            cut = CutoffStage.from_record(records.stage_record("cutoff"))
            return pipeline.stage_select(params, listed, cut).to_record()
        selection = Selection.from_record(records.stage_record("select"))
        return pipeline.stage_generate(requirement, params, listed, selection).to_record()

    def _complete(self, records: BuildRecords, spec: BuildSpec, since: str, tenant: str) -> BuildCompleted:
        """`since`: the build (of the same tenant) the outputs are compared with (diff.json), or ""."""
        if not self.store.exists(records.manifest_key):
            records.beat(self.stage, "started")
            started = time.perf_counter()
            requirement = spec.validate()
            world, versions = self.worlds.get(requirement, spec.params.seed, spec.jury)
            result = BuildPipeline(world).assemble(
                VotedUnits.from_record(records.stage_record("vote")),
                CandidateList.from_record(records.stage_record("candidates")),
                CutoffStage.from_record(records.stage_record("cutoff")),
                Selection.from_record(records.stage_record("select")),
                Generated.from_record(records.stage_record("generate")), spec.params.min_items)
            files = with_diff(render_files(requirement, spec.params, spec.jury, versions, result,
                                           world.mcq_writer.name if world.mcq_writer else None),
                              previous_stored_build(self.store, since, tenant) if since else None, since)
            listed = []
            for name, text in files.items():
                ref = put_object(self.store, records.output_key(name), text.encode())
                listed.append({"name": name, "key": ref.key, "sha256": ref.sha256, "size_bytes": ref.size_bytes})
            records.write_json(records.timing_key("complete"), {"seconds": round(time.perf_counter() - started, 3)})
            records.write_json(records.manifest_key, {"files": listed, "n_mcq": len(result.benchmark),
                                                      "coverage": _coverage_summary(result.status)})
        manifest = records.read_json(records.manifest_key)
        return BuildCompleted(stored_object(self.store, records.manifest_key), int(manifest["n_mcq"]))

    def _failed(self, records: BuildRecords, code: str, reason: str, field: str = "") -> BuildFailed:
        failure = records.record_failure(self.stage, code, reason, field)
        return BuildFailed(failure["stage"], failure["code"], failure["field"], failure["reason"])


def _coverage_summary(status: dict[str, Any]) -> dict[str, Any]:
    """What the Build status carries: ok/thin, the thin voted units, and what would fill them."""
    message = f"{status['message']}; {status['suggestion']}" if status.get("status") == "thin" else ""
    return {"status": status.get("status", "ok"), "thin_units": list(status.get("thin_units", [])),
            "message": message}
