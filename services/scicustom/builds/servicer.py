"""BuildService: proto <-> the build control use case (app/build/control.py); a new build is
announced on Kafka (build.requested) for the stage workers. DownloadArtifacts streams a finished
build's files from the object store (app/build/artifact_download.py). RedriveDeadLetters (admin
only, grpc_server/authorisation.py) runs the redrive `scicustom dlq redrive` runs
(workers/dead_letters.py)."""

from __future__ import annotations

import itertools
import random
import threading
from collections.abc import Iterator
from datetime import datetime

import grpc
from opentelemetry import trace

from scicustom.app.build.artifact_download import CHUNK_BYTES, artifact_chunks
from scicustom.app.build.build_records import BUILD_STAGES, BuildState
from scicustom.app.build.control import WATCH_POLL_S, BuildControl, CreatedBuild
from scicustom.app.build.request import DEFAULT_METHOD, BuildOptions, RequirementSource, validated_request
from scicustom.bootstrap import Context
from scicustom.builds.v1 import builds_pb2 as pb
from scicustom.builds.v1 import builds_pb2_grpc as pb_grpc
from scicustom.events.v1 import events_pb2 as ev
from scicustom.grpc_server.authentication import current_tenant
from scicustom.grpc_server.server import ServiceBinding
from scicustom.telemetry.metrics import process_metrics
from scicustom.workers.dead_letters import (
    DEFAULT_LIMIT,
    DEFAULT_WAIT_S,
    DeadLetterSummary,
    dead_letter_query,
    redrive_dead_letters,
)
from scicustom.workers.envelopes import envelope, publish
from scicustom.workers.topics import BUILD_REQUESTED, Topics

SERVICE_NAME = "scicustom.builds.v1.BuildService"
_STATES = {"queued": pb.BUILD_STATE_QUEUED, "running": pb.BUILD_STATE_RUNNING,
           "succeeded": pb.BUILD_STATE_SUCCEEDED, "failed": pb.BUILD_STATE_FAILED,
           "cancelled": pb.BUILD_STATE_CANCELLED}


def requirement_source(request: pb.CreateBuildRequest) -> RequirementSource:
    which = request.WhichOneof("requirement")
    return RequirementSource(yaml=request.requirement_yaml if which == "requirement_yaml" else None,
                             text=request.requirement_text if which == "requirement_text" else None)


def build_options(request: pb.CreateBuildRequest) -> BuildOptions:
    """Unset (0, empty) fields take the requirement's value or the default."""
    return BuildOptions(method=request.method or DEFAULT_METHOD, k1=request.k1 or None, k2=request.k2 or None,
                        proxy_samples=request.proxy_samples or None, seed=request.seed,
                        llm_judges=request.llm_judges, relevance_quantile=request.relevance_quantile or None,
                        min_items=request.min_items or None)


def dead_letter_message(summary: DeadLetterSummary) -> pb.DeadLetterSummary:
    return pb.DeadLetterSummary(stage=summary.stage, topic=summary.topic, partition=summary.partition,
                                offset=summary.offset, attempts=summary.attempts, error=summary.error,
                                redriven=summary.redriven)


def build_message(state: BuildState) -> pb.Build:
    message = pb.Build(
        build_id=state.build_id, state=_STATES[state.state], requirement_name=state.spec["requirement_name"],
        method=state.spec["spec"]["params"]["method"], error=state.error, error_field=state.error_field,
        n_mcq=state.n_mcq, coverage_status=state.coverage.get("status", ""),
        thin_units=state.coverage.get("thin_units", []), coverage_message=state.coverage.get("message", ""),
        since_build_id=state.spec.get("since_build_id", ""), standing_id=state.spec.get("standing_id", ""),
        stages=[pb.StageStatus(stage=s, done=d, seconds=t) for s, d, t in state.stages],
        files=[pb.OutputFile(name=f["name"], key=f["key"], sha256=f["sha256"], size_bytes=f["size_bytes"])
               for f in state.files])
    message.created.FromDatetime(datetime.fromisoformat(state.created))
    return message


def progress_message(state: BuildState) -> pb.BuildProgress:
    return pb.BuildProgress(build=build_message(state), current_stage=state.current_stage,
                            stages_done=state.stages_done, stages_total=len(BUILD_STAGES))


class BuildServicer(pb_grpc.BuildServiceServicer):
    def __init__(self, ctx: Context, watch_poll_s: float = WATCH_POLL_S, chunk_bytes: int = CHUNK_BYTES) -> None:
        self.ctx = ctx
        self.topics = Topics(ctx.settings.topic_prefix)
        self.watch_poll_s = watch_poll_s
        self.chunk_bytes = chunk_bytes  # DownloadArtifacts' chunk size, below the message limit
        # Builds are dealt out to the partitions in turn (each replica from its own random start):
        # hashed by build id, a few builds land unevenly on the workers and the busiest one sets
        # when they all end. The stage workers keep a build's later events on its lane.
        self._next_lane = itertools.count(random.randrange(1 << 16))

    @property
    def control(self) -> BuildControl:
        """The calling tenant's builds (grpc_server/authentication.py sets it): another tenant's build
        is NOT_FOUND to every RPC, and ListBuilds lists the caller's own only."""
        return BuildControl(self.ctx, current_tenant(), self.ctx.settings.max_active_builds_per_tenant)

    def CreateBuild(self, request: pb.CreateBuildRequest, context: grpc.ServicerContext) -> pb.Build:
        # The idempotency key is recorded only once build.requested is published and flushed (control.py).
        created = self.control.create(validated_request(requirement_source(request), build_options(request)),
                                      request.request_id, request.since_build_id, request.standing_min_new_items,
                                      announce=self._announce)
        return build_message(self.control.get(created.build_id))

    def _announce(self, created: CreatedBuild) -> None:
        assert created.spec is not None
        trace.get_current_span().set_attribute("scicustom.build_id", created.build_id)
        spec = ev.ArtifactRef(key=created.spec.key, sha256=created.spec.sha256, size_bytes=created.spec.size_bytes)
        message = envelope(BUILD_REQUESTED, build_id=created.build_id, tenant=created.tenant,
                           build_requested=ev.BuildRequested(spec=spec))
        topic = self.topics.of(BUILD_REQUESTED)
        lanes = self.ctx.event_bus.partition_keys(topic)
        publish(self.ctx.event_bus, topic, lanes[next(self._next_lane) % len(lanes)], message)
        self.ctx.event_bus.flush()
        process_metrics().builds.labels("queued").inc()

    def GetBuild(self, request: pb.GetBuildRequest, context: grpc.ServicerContext) -> pb.Build:
        return build_message(self.control.get(request.build_id))

    def ListBuilds(self, request: pb.ListBuildsRequest, context: grpc.ServicerContext) -> pb.ListBuildsResponse:
        page = self.control.list(request.page_size, request.page_token)
        return pb.ListBuildsResponse(builds=[build_message(s) for s in page.builds],
                                     next_page_token=page.next_page_token)

    def WatchBuild(self, request: pb.WatchBuildRequest, context: grpc.ServicerContext) -> Iterator[pb.BuildProgress]:
        # The call's end (the caller cancelled or vanished, its deadline passed) wakes the wait between
        # reads at once: the stream and its thread are given back without waiting out a poll.
        ended = threading.Event()
        context.add_callback(ended.set)
        for state in self.control.watch(request.build_id, lambda: context.is_active() and not ended.is_set(),
                                        self.watch_poll_s, wait=ended.wait):
            yield progress_message(state)

    def CancelBuild(self, request: pb.CancelBuildRequest, context: grpc.ServicerContext) -> pb.Build:
        return build_message(self.control.cancel(request.build_id))

    def DownloadArtifacts(self, request: pb.DownloadArtifactsRequest,
                          context: grpc.ServicerContext) -> Iterator[pb.ArtifactChunk]:
        for chunk in artifact_chunks(self.control, request.build_id, list(request.names), self.chunk_bytes):
            if not context.is_active():  # the caller went away: read nothing more from the store
                return
            yield pb.ArtifactChunk(name=chunk.name, offset=chunk.offset, data=chunk.data, last=chunk.last,
                                   sha256=chunk.sha256, size_bytes=chunk.size_bytes)

    def RedriveDeadLetters(self, request: pb.RedriveDeadLettersRequest,
                           context: grpc.ServicerContext) -> pb.RedriveDeadLettersResponse:
        query = dead_letter_query(request.stage, request.limit or DEFAULT_LIMIT, request.wait_s or DEFAULT_WAIT_S)
        result = redrive_dead_letters(self.ctx.event_bus, self.topics, query.stage, query.limit, query.wait_s)
        return pb.RedriveDeadLettersResponse(redriven=[dead_letter_message(d) for d in result.redriven],
                                             skipped=[dead_letter_message(d) for d in result.skipped])


def binding(ctx: Context) -> ServiceBinding:
    servicer = BuildServicer(ctx)
    return ServiceBinding(SERVICE_NAME, lambda server: pb_grpc.add_BuildServiceServicer_to_server(servicer, server))
