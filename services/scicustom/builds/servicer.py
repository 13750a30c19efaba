"""BuildService: records a build request, starts it on Kafka, and reports it from the object store.

The service holds no state of its own (any replica can answer for any build): a build's state is
what its stage workers wrote under builds/<id>/ (see build_records.py).
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterator
from datetime import UTC, datetime

import grpc
from opentelemetry import trace

from scicustom.bootstrap import Context
from scicustom.builds.build_records import REQUESTS_PREFIX, BuildRecords, BuildState, list_build_ids, new_build_id
from scicustom.builds.build_spec import BuildSpec
from scicustom.builds.build_world import JuryOptions
from scicustom.builds.v1 import builds_pb2 as pb
from scicustom.builds.v1 import builds_pb2_grpc as pb_grpc
from scicustom.core.build.pipeline import BuildParams
from scicustom.core.errors import InvalidInput
from scicustom.events.v1 import events_pb2 as ev
from scicustom.grpc_server.field_checks import bounded
from scicustom.grpc_server.server import ServiceBinding
from scicustom.workers.envelopes import canonical_bytes, envelope, publish, put_artifact
from scicustom.workers.topics import BUILD_REQUESTED, BUILD_STAGES, Topics

SERVICE_NAME = "scicustom.builds.v1.BuildService"
MAX_PAGE = 100
DEFAULT_PAGE = 20
MAX_REQUEST_ID = 128
WATCH_POLL_S = 0.2
_STATES = {"queued": pb.BUILD_STATE_QUEUED, "running": pb.BUILD_STATE_RUNNING,
           "succeeded": pb.BUILD_STATE_SUCCEEDED, "failed": pb.BUILD_STATE_FAILED,
           "cancelled": pb.BUILD_STATE_CANCELLED}


def spec_from_request(request: pb.CreateBuildRequest) -> BuildSpec:
    """The stored spec of a request; InvalidInput names the request field at fault."""
    which = request.WhichOneof("requirement")
    if which is None:
        raise InvalidInput("requirement", "give requirement_yaml or requirement_text")
    if len(request.request_id) > MAX_REQUEST_ID:
        raise InvalidInput("request_id", f"is longer than {MAX_REQUEST_ID} characters")
    spec = BuildSpec(
        request.requirement_yaml if which == "requirement_yaml" else None,
        request.requirement_text if which == "requirement_text" else None,
        BuildParams(method=request.method or "scicustom"), JuryOptions())
    requirement = spec.requirement()
    params = BuildParams(
        method=request.method or "scicustom",
        k1=bounded(request.k1, "k1", 100, requirement.k1),
        k2=bounded(request.k2, "k2", 1000, requirement.k2),
        proxy_samples=bounded(request.proxy_samples, "proxy_samples", 1000, requirement.proxy_samples),
        seed=request.seed)
    jury = JuryOptions(llm_judges=request.llm_judges, relevance_quantile=request.relevance_quantile or 0.95)
    spec = BuildSpec(spec.requirement_yaml, spec.requirement_text, params, jury)
    spec.validate()
    return spec


def build_message(state: BuildState) -> pb.Build:
    message = pb.Build(
        build_id=state.build_id, state=_STATES[state.state], requirement_name=state.spec["requirement_name"],
        method=state.spec["spec"]["params"]["method"], error=state.error, error_field=state.error_field,
        n_mcq=state.n_mcq,
        stages=[pb.StageStatus(stage=s, done=d, seconds=t) for s, d, t in state.stages],
        files=[pb.OutputFile(name=f["name"], key=f["key"], sha256=f["sha256"], size_bytes=f["size_bytes"])
               for f in state.files])
    message.created.FromDatetime(datetime.fromisoformat(state.created))
    return message


def progress_message(state: BuildState) -> pb.BuildProgress:
    done = sum(1 for _, d, _ in state.stages if d)
    current = "" if state.terminal else next((s for s, d, _ in state.stages if not d), "")
    return pb.BuildProgress(build=build_message(state), current_stage=current, stages_done=done,
                            stages_total=len(BUILD_STAGES))


class BuildServicer(pb_grpc.BuildServiceServicer):
    def __init__(self, ctx: Context, watch_poll_s: float = WATCH_POLL_S) -> None:
        self.ctx = ctx
        self.topics = Topics(ctx.settings.topic_prefix)
        self.watch_poll_s = watch_poll_s

    def _records(self, build_id: str) -> BuildRecords:
        if not build_id:
            raise InvalidInput("build_id", "is empty")
        if "/" in build_id or build_id.startswith("."):
            raise InvalidInput("build_id", f"{build_id!r} is not a build id")
        return BuildRecords(self.ctx.store, build_id)

    def CreateBuild(self, request: pb.CreateBuildRequest, context: grpc.ServicerContext) -> pb.Build:
        spec = spec_from_request(request)
        store = self.ctx.store
        request_key = ""
        if request.request_id:
            request_key = f"{REQUESTS_PREFIX}{hashlib.sha256(request.request_id.encode()).hexdigest()}.json"
            if store.exists(request_key):
                return build_message(self._records(json.loads(store.get_bytes(request_key))["build_id"]).state())
        records = BuildRecords(store, new_build_id(request.request_id))
        stored = {"spec": spec.to_record(), "created": datetime.now(UTC).isoformat(),
                  "requirement_name": spec.requirement().name, "request_id": request.request_id}
        ref = put_artifact(store, records.spec_key, canonical_bytes(stored))
        if request_key:
            store.put_bytes(request_key, json.dumps({"build_id": records.build_id}).encode())
        trace.get_current_span().set_attribute("scicustom.build_id", records.build_id)
        message = envelope(BUILD_REQUESTED, build_id=records.build_id, build_requested=ev.BuildRequested(spec=ref))
        publish(self.ctx.event_bus, self.topics.of(BUILD_REQUESTED), records.build_id, message)
        self.ctx.event_bus.flush()
        return build_message(records.state())

    def GetBuild(self, request: pb.GetBuildRequest, context: grpc.ServicerContext) -> pb.Build:
        return build_message(self._records(request.build_id).state())

    def ListBuilds(self, request: pb.ListBuildsRequest, context: grpc.ServicerContext) -> pb.ListBuildsResponse:
        size = bounded(request.page_size, "page_size", MAX_PAGE, DEFAULT_PAGE)
        newest_first = list(reversed(list_build_ids(self.ctx.store)))
        if request.page_token:
            if request.page_token not in newest_first:
                raise InvalidInput("page_token", "is not a token this service returned")
            newest_first = newest_first[newest_first.index(request.page_token) + 1:]
        page = newest_first[:size]
        token = page[-1] if len(newest_first) > size else ""
        return pb.ListBuildsResponse(builds=[build_message(self._records(b).state()) for b in page],
                                     next_page_token=token)

    def WatchBuild(self, request: pb.WatchBuildRequest, context: grpc.ServicerContext) -> Iterator[pb.BuildProgress]:
        records = self._records(request.build_id)
        last: pb.BuildProgress | None = None
        while context.is_active():
            state = records.state()
            progress = progress_message(state)
            if progress != last:
                yield progress
                last = progress
            if state.terminal:
                return
            time.sleep(self.watch_poll_s)

    def CancelBuild(self, request: pb.CancelBuildRequest, context: grpc.ServicerContext) -> pb.Build:
        records = self._records(request.build_id)
        state = records.state()
        if not state.terminal and not self.ctx.store.exists(records.cancel_key):
            records.write_json(records.cancel_key, {"requested": datetime.now(UTC).isoformat()})
        return build_message(records.state())


def binding(ctx: Context) -> ServiceBinding:
    servicer = BuildServicer(ctx)
    return ServiceBinding(SERVICE_NAME, lambda server: pb_grpc.add_BuildServiceServicer_to_server(servicer, server))
