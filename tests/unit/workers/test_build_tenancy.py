"""BuildService with authentication on: every RPC needs a token, and a tenant sees, watches,
cancels, downloads and lists its own builds only; another tenant's build is NOT_FOUND exactly like
an id that never existed. The tenant travels in the events, so the workers keep the build under
tenants/<tenant>/ from its spec to its files; standing builds stay their tenant's."""

from __future__ import annotations

import grpc
import pytest

from scicustom.app.build.build_records import BuildRecords
from scicustom.builds.servicer import binding
from scicustom.builds.standing_worker import StandingCountHandler, StandingNotifyHandler
from scicustom.builds.v1 import builds_pb2 as pb
from scicustom.builds.v1 import builds_pb2_grpc as pb_grpc
from scicustom.events.v1 import events_pb2 as ev
from scicustom.workers.envelopes import envelope
from scicustom.workers.topics import Topics
from tests.support.grpc_loopback import health_status, loopback, reflected_services, rpc_error
from tests.support.tenant_tokens import tenants
from tests.unit.workers.conftest import TEXT, run_workers
from tests.unit.workers.test_standing_builds import _indexed_batch


def _request(**fields) -> pb.CreateBuildRequest:
    return pb.CreateBuildRequest(requirement_text=TEXT, k1=2, k2=20, proxy_samples=10, seed=1,
                                 relevance_quantile=0.75, **fields)


def _terminal(ctx, build_id: str, tenant: str):
    return lambda workers: BuildRecords(ctx.store, build_id, tenant).state().terminal


@pytest.fixture
def served(ctx, tmp_path):
    known = tenants(tmp_path, "acme", "globex")
    with loopback([binding(ctx)], interceptors=known.interceptors()) as channel:
        yield ctx, pb_grpc.BuildServiceStub(channel), known, channel


def _rpcs(stub: pb_grpc.BuildServiceStub, build_id: str):
    """Each BuildService RPC on `build_id` (ListBuilds: the first page), streams read to the end."""
    return {
        "CreateBuild": lambda md: stub.CreateBuild(_request(), metadata=md, timeout=10),
        "GetBuild": lambda md: stub.GetBuild(pb.GetBuildRequest(build_id=build_id), metadata=md, timeout=10),
        "ListBuilds": lambda md: stub.ListBuilds(pb.ListBuildsRequest(), metadata=md, timeout=10),
        "WatchBuild": lambda md: list(stub.WatchBuild(pb.WatchBuildRequest(build_id=build_id), metadata=md,
                                                      timeout=10)),
        "CancelBuild": lambda md: stub.CancelBuild(pb.CancelBuildRequest(build_id=build_id), metadata=md, timeout=10),
        "DownloadArtifacts": lambda md: list(stub.DownloadArtifacts(pb.DownloadArtifactsRequest(build_id=build_id),
                                                                    metadata=md, timeout=10)),
    }


def test_every_build_rpc_is_authenticated_and_scoped_to_the_callers_tenant(served):
    ctx, stub, known, channel = served
    acme, globex = known.metadata("acme"), known.metadata("globex")
    build = stub.CreateBuild(_request(request_id="r-1"), metadata=acme, timeout=10)
    run_workers(ctx, _terminal(ctx, build.build_id, "acme"))
    rpcs = _rpcs(stub, build.build_id)

    # No token, or one the file does not list: UNAUTHENTICATED, for every RPC.
    for name, call in rpcs.items():
        for metadata in (None, [("authorization", "Bearer sct_not-a-known-token")]):
            error = rpc_error(lambda: call(metadata))  # noqa: B023
            assert error.code() == grpc.StatusCode.UNAUTHENTICATED, name
    assert health_status(channel, "scicustom.builds.v1.BuildService") == 1  # SERVING, without a token
    assert "scicustom.builds.v1.BuildService" in reflected_services(channel)

    # The owner: every RPC answers.
    assert rpcs["GetBuild"](acme).state == pb.BUILD_STATE_SUCCEEDED
    assert [b.build_id for b in rpcs["ListBuilds"](acme).builds] == [build.build_id]
    assert rpcs["WatchBuild"](acme)[-1].build.state == pb.BUILD_STATE_SUCCEEDED
    assert {c.name for c in rpcs["DownloadArtifacts"](acme) if c.last} >= {"benchmark.jsonl", "config.json"}
    assert rpcs["CancelBuild"](acme).state == pb.BUILD_STATE_SUCCEEDED

    # Another tenant: NOT_FOUND, word for word what an unknown id gets; an empty listing.
    unknown = rpc_error(lambda: _rpcs(stub, "b20000101T000000000000-0000abcd")["GetBuild"](globex))
    for name in ("GetBuild", "WatchBuild", "CancelBuild", "DownloadArtifacts"):
        error = rpc_error(lambda: rpcs[name](globex))  # noqa: B023
        assert error.code() == grpc.StatusCode.NOT_FOUND, name
        assert error.details() == unknown.details().replace("b20000101T000000000000-0000abcd", build.build_id)
    assert list(rpcs["ListBuilds"](globex).builds) == []
    error = rpc_error(lambda: stub.CreateBuild(_request(since_build_id=build.build_id), metadata=globex, timeout=10))
    assert error.code() == grpc.StatusCode.INVALID_ARGUMENT
    assert error.details() == f"since_build_id: no build {build.build_id!r}"
    assert BuildRecords(ctx.store, build.build_id, "acme").state().state == "succeeded"  # globex's cancel did nothing

    # Idempotency keys are per tenant: the same request id names acme's build for acme only.
    assert stub.CreateBuild(_request(request_id="r-1"), metadata=acme, timeout=10).build_id == build.build_id
    theirs = stub.CreateBuild(_request(request_id="r-1"), metadata=globex, timeout=10)
    assert theirs.build_id != build.build_id
    assert [b.build_id for b in rpcs["ListBuilds"](globex).builds] == [theirs.build_id]

    # Where it all lives: under each tenant's prefix, nothing in the un-prefixed layout.
    assert ctx.store.list_keys("builds/") == [] and ctx.store.list_keys("build-requests/") == []
    acme_keys = ctx.store.list_keys("tenants/acme/")
    assert f"tenants/acme/builds/{build.build_id}/output/benchmark.jsonl" in acme_keys
    assert all(f.key.startswith(f"tenants/acme/builds/{build.build_id}/output/") for f in build.files)
    assert not [k for k in ctx.store.list_keys("tenants/globex/") if build.build_id in k]
    # ... and the events said whose build it was, from build.requested to build.completed.
    consumer = ctx.event_bus.consumer("check", ["t.build.requested", "t.build.completed"])
    seen = [ev.Envelope.FromString(m.value) for m in consumer.poll(max_records=100, timeout_s=0.1)]
    assert {(e.type, e.tenant) for e in seen if e.build_id == build.build_id} == {
        ("build.requested", "acme"), ("build.completed", "acme")}


def test_a_standing_build_stays_its_tenants(served):
    ctx, stub, known, _ = served
    first = stub.CreateBuild(_request(standing_min_new_items=1), metadata=known.metadata("acme"), timeout=10)
    run_workers(ctx, _terminal(ctx, first.build_id, "acme"))
    topics = Topics("t")
    count, notify = StandingCountHandler(ctx, topics), StandingNotifyHandler(ctx, topics)
    voted = BuildRecords(ctx.store, first.build_id, "acme").stage_record("vote")["votes"]["units"]
    (out,) = count.handle(_indexed_batch(ctx, "c" * 32, [[voted[0]]]))
    assert out.envelope.tenant == "acme"
    new_id = out.envelope.build_id
    assert BuildRecords(ctx.store, new_id, "acme").exists() and not BuildRecords(ctx.store, new_id).exists()
    ctx.event_bus.send(out.topic, out.envelope.SerializeToString(), key=new_id)
    run_workers(ctx, _terminal(ctx, new_id, "acme"))
    listed = stub.ListBuilds(pb.ListBuildsRequest(), metadata=known.metadata("acme"), timeout=10).builds
    assert [b.build_id for b in listed] == [new_id, first.build_id]
    assert stub.ListBuilds(pb.ListBuildsRequest(), metadata=known.metadata("globex"), timeout=10).builds == []
    done = ev.BuildCompleted(n_mcq=1)
    (updated,) = notify.handle(envelope("build.completed", build_id=new_id, tenant="acme", build_completed=done))
    assert updated.envelope.tenant == "acme" and updated.envelope.build_updated.standing_id == first.standing_id
    assert updated.envelope.build_updated.diff.key.startswith(f"tenants/acme/builds/{new_id}/")
    # The same build id without its tenant names nothing.
    assert notify.handle(envelope("build.completed", build_id=new_id, build_completed=done)) == []
