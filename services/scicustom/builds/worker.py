"""The build stages as Kafka worker handlers: each reads the earlier stages' records from the
object store, runs its step of the core pipeline, writes its record and announces it.

Idempotent on (build id, stage): a stage whose record exists only re-announces it, so a worker
killed between writing and committing costs a redelivery, never a second, different result.
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any

from scicustom.bootstrap import Context
from scicustom.builds.build_records import BuildRecords
from scicustom.builds.build_spec import BuildSpec
from scicustom.builds.build_world import assemble_world
from scicustom.builds.output_files import render_files
from scicustom.core.build.pipeline import BuildPipeline, BuildWorld
from scicustom.core.build.stage_records import CandidateList, CutoffStage, Generated, Selection, VotedUnits
from scicustom.core.errors import InvalidInput, PreconditionFailed
from scicustom.core.requirement import Requirement
from scicustom.events.v1 import events_pb2 as ev
from scicustom.workers.envelopes import (
    PoisonEvent,
    canonical_bytes,
    envelope,
    get_artifact,
    put_artifact,
    ref_of,
)
from scicustom.workers.stage_consumer import Outgoing
from scicustom.workers.topics import BUILD_FAILED, BUILD_STAGES, Topics, published_type


class WorldCache:
    """The last assembled world: loading the corpus, embeddings and judges takes seconds, and
    consecutive builds usually share the corpus version, seed and jury."""

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx
        self._key: str | None = None
        self._value: tuple[BuildWorld, dict[str, Any]] | None = None
        self._lock = threading.Lock()  # stages of one process share it from their threads

    def get(self, requirement: Requirement, spec: BuildSpec) -> tuple[BuildWorld, dict[str, Any]]:
        judges = [j.litellm_model for j in (*requirement.voting_judges, *requirement.relevance_judges)]
        key = json.dumps([self.ctx.current_index(), spec.params.seed, spec.jury.llm_judges,
                          spec.jury.relevance_quantile, judges if spec.jury.llm_judges else []], sort_keys=True)
        with self._lock:
            if key != self._key or self._value is None:
                world, versions = assemble_world(self.ctx, requirement, spec.params.seed, spec.jury,
                                                 lambda stage, done, total: None)
                world.clock = time.perf_counter
                self._key, self._value = key, (world, versions)
            return self._value


class BuildStageHandler:
    def __init__(self, stage: str, ctx: Context, topics: Topics, worlds: WorldCache) -> None:
        if stage not in BUILD_STAGES:
            raise ValueError(f"{stage!r} is not a build stage")
        self.stage = stage
        self.ctx = ctx
        self.topics = topics
        self.worlds = worlds

    def handle(self, event: ev.Envelope) -> list[Outgoing]:
        store = self.ctx.store
        if not event.build_id:
            raise PoisonEvent("build event without a build id")
        records = BuildRecords(store, event.build_id)
        if not records.exists():
            raise PoisonEvent(f"no build {event.build_id!r}")
        body = event.WhichOneof("body")
        if body == "build_requested":
            get_artifact(store, event.build_requested.spec)
        elif body == "stage_completed":
            get_artifact(store, event.stage_completed.artifact)  # verifies the predecessor's bytes
        else:
            raise PoisonEvent(f"a {self.stage} worker cannot handle a {body} event")
        if store.exists(records.failed_key):
            return []  # failed or cancelled earlier; its build.failed event is already out
        if store.exists(records.cancel_key):
            return [self._failed(records, "CANCELLED", "cancelled by CancelBuild")]
        spec = BuildSpec.from_record(records.read_json(records.spec_key)["spec"])
        try:
            if self.stage == "complete":
                return [self._complete(records, spec)]
            if not store.exists(records.stage_key(self.stage)):
                started = time.perf_counter()
                record = self._compute(records, spec)
                records.write_json(records.timing_key(self.stage),
                                   {"seconds": round(time.perf_counter() - started, 3)})
                put_artifact(store, records.stage_key(self.stage), canonical_bytes(record))
        except InvalidInput as exc:
            return [self._failed(records, "INVALID_ARGUMENT", exc.problem, exc.field)]
        except PreconditionFailed as exc:
            return [self._failed(records, "FAILED_PRECONDITION", str(exc))]
        seconds = float(records.read_json(records.timing_key(self.stage))["seconds"])
        done = ev.StageCompleted(stage=self.stage, artifact=ref_of(store, records.stage_key(self.stage)),
                                 seconds=seconds)
        kind = published_type(self.stage)
        return [Outgoing(self.topics.of(kind), event.build_id,
                         envelope(kind, build_id=event.build_id, stage_completed=done))]

    def on_dead_letter(self, event: ev.Envelope, error: str) -> list[Outgoing]:
        if not event.build_id or not BuildRecords(self.ctx.store, event.build_id).exists():
            return []
        return [self._failed(BuildRecords(self.ctx.store, event.build_id), "INTERNAL", error)]

    # -- the stages --------------------------------------------------------------------------------
    def _pipeline(self, spec: BuildSpec) -> tuple[BuildPipeline, Requirement]:
        requirement = spec.validate()
        world, _ = self.worlds.get(requirement, spec)
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

    def _complete(self, records: BuildRecords, spec: BuildSpec) -> Outgoing:
        store = self.ctx.store
        if not store.exists(records.manifest_key):
            started = time.perf_counter()
            requirement = spec.validate()
            world, versions = self.worlds.get(requirement, spec)
            result = BuildPipeline(world).assemble(
                VotedUnits.from_record(records.stage_record("vote")),
                CandidateList.from_record(records.stage_record("candidates")),
                CutoffStage.from_record(records.stage_record("cutoff")),
                Selection.from_record(records.stage_record("select")),
                Generated.from_record(records.stage_record("generate")))
            files = render_files(requirement, spec.params, spec.jury, versions, result,
                                 world.mcq_writer.name if world.mcq_writer else None)
            listed = []
            for name, text in files.items():
                ref = put_artifact(store, records.output_key(name), text.encode())
                listed.append({"name": name, "key": ref.key, "sha256": ref.sha256, "size_bytes": ref.size_bytes})
            records.write_json(records.timing_key("complete"), {"seconds": round(time.perf_counter() - started, 3)})
            records.write_json(records.manifest_key, {"files": listed, "n_mcq": len(result.benchmark)})
        manifest = records.read_json(records.manifest_key)
        done = ev.BuildCompleted(manifest=ref_of(store, records.manifest_key), n_mcq=int(manifest["n_mcq"]))
        kind = published_type("complete")
        return Outgoing(self.topics.of(kind), records.build_id,
                        envelope(kind, build_id=records.build_id, build_completed=done))

    def _failed(self, records: BuildRecords, code: str, reason: str, field: str = "") -> Outgoing:
        failure = records.record_failure(self.stage, code, reason, field)
        body = ev.BuildFailed(stage=failure["stage"], code=failure["code"], field=failure["field"],
                              reason=failure["reason"])
        return Outgoing(self.topics.of(BUILD_FAILED), records.build_id,
                        envelope(BUILD_FAILED, build_id=records.build_id, build_failed=body))
