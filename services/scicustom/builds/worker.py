"""The build stages as Kafka worker handlers: decode the event, run the stage (app/build/stages.py),
announce what it did. The consumer loop (workers/stage_consumer.py) publishes, then commits.
What is announced also counts in scicustom_builds_total{state}: running when the first stage is
done, then succeeded, failed or cancelled (a redelivered record may count twice: at least once)."""

from __future__ import annotations

from scicustom.app.build.build_records import BUILD_STAGES, StoredObject
from scicustom.app.build.stages import BuildCompleted, BuildFailed, BuildStage, StageCompleted, StageOutcome, Worlds
from scicustom.bootstrap import Context
from scicustom.events.v1 import events_pb2 as ev
from scicustom.telemetry.metrics import process_metrics
from scicustom.workers.envelopes import PoisonEvent, envelope, get_artifact
from scicustom.workers.stage_consumer import Outgoing
from scicustom.workers.topics import BUILD_FAILED, Topics, published_type


class BuildStageHandler:
    def __init__(self, stage: str, ctx: Context, topics: Topics, worlds: Worlds) -> None:
        """`worlds`: ctx.world_cache(), one shared by the stages of a process."""
        self.ctx = ctx
        self.build = BuildStage(stage, ctx, worlds)
        self.stage = stage
        self.topics = topics

    def handle(self, event: ev.Envelope) -> list[Outgoing]:
        if not event.build_id:
            raise PoisonEvent("build event without a build id")
        if not self.build.knows(event.build_id, event.tenant):
            raise PoisonEvent(f"no build {event.build_id!r} of tenant {event.tenant or 'local'!r}")
        body = event.WhichOneof("body")
        if body == "build_requested":
            get_artifact(self.ctx.store, event.build_requested.spec)
        elif body == "stage_completed":
            get_artifact(self.ctx.store, event.stage_completed.artifact)  # verifies the predecessor's bytes
        else:
            raise PoisonEvent(f"a {self.stage} worker cannot handle a {body} event")
        return self._announce(event.build_id, self.build.run(event.build_id, event.tenant), event.tenant)

    def on_dead_letter(self, event: ev.Envelope, error: str) -> list[Outgoing]:
        return self._announce(event.build_id, self.build.fail(event.build_id, "INTERNAL", error, event.tenant),
                              event.tenant)

    def _announce(self, build_id: str, outcome: StageOutcome, tenant: str) -> list[Outgoing]:
        """The next event, for the same tenant (its workers read and write under the tenant's prefix)."""
        if outcome is None:
            return []
        _count_state(outcome)
        if isinstance(outcome, BuildFailed):
            body = ev.BuildFailed(stage=outcome.stage, code=outcome.code, field=outcome.field, reason=outcome.reason)
            return [Outgoing(self.topics.of(BUILD_FAILED), build_id,
                             envelope(BUILD_FAILED, build_id=build_id, tenant=tenant, build_failed=body))]
        kind = published_type(self.stage)
        if isinstance(outcome, BuildCompleted):
            done = ev.BuildCompleted(manifest=_ref(outcome.manifest), n_mcq=outcome.n_mcq)
            return [Outgoing(self.topics.of(kind), build_id,
                             envelope(kind, build_id=build_id, tenant=tenant, build_completed=done))]
        assert isinstance(outcome, StageCompleted)
        completed = ev.StageCompleted(stage=outcome.stage, artifact=_ref(outcome.record), seconds=outcome.seconds)
        return [Outgoing(self.topics.of(kind), build_id,
                         envelope(kind, build_id=build_id, tenant=tenant, stage_completed=completed))]


def _count_state(outcome: StageOutcome) -> None:
    if isinstance(outcome, BuildFailed):
        state = "cancelled" if outcome.code == "CANCELLED" else "failed"
    elif isinstance(outcome, BuildCompleted):
        state = "succeeded"
    elif isinstance(outcome, StageCompleted) and outcome.stage == BUILD_STAGES[0]:
        state = "running"
    else:
        return
    process_metrics().builds.labels(state).inc()


def _ref(stored: StoredObject) -> ev.ArtifactRef:
    return ev.ArtifactRef(key=stored.key, sha256=stored.sha256, size_bytes=stored.size_bytes)


def stage_handlers(ctx: Context, stages: list[str], topics: Topics) -> list[BuildStageHandler]:
    """The handlers `scicustom worker` runs for these build stages (they share one world cache)."""
    worlds = ctx.world_cache()
    return [BuildStageHandler(stage, ctx, topics, worlds) for stage in stages]
