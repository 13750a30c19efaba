"""A tenant's quota of active builds (settings.max_active_builds_per_tenant): CreateBuild beyond it is
RESOURCE_EXHAUSTED naming the quota, other tenants are not affected, a retried request id is never
refused, and a build that ends gives its place back."""

from __future__ import annotations

import grpc
import pytest

from scicustom.app.build.build_records import BuildRecords, active_build_ids
from scicustom.builds.servicer import binding
from scicustom.builds.v1 import builds_pb2 as pb
from scicustom.builds.v1 import builds_pb2_grpc as pb_grpc
from tests.support.grpc_loopback import loopback, rpc_error
from tests.support.tenant_tokens import tenants
from tests.unit.workers.conftest import TEXT


def _request(**fields) -> pb.CreateBuildRequest:
    return pb.CreateBuildRequest(requirement_text=TEXT, k1=2, k2=20, proxy_samples=10, seed=1,
                                 relevance_quantile=0.75, **fields)


@pytest.fixture
def served(ctx, tmp_path):
    ctx.settings.max_active_builds_per_tenant = 2
    known = tenants(tmp_path, "acme", "globex")
    with loopback([binding(ctx)], interceptors=known.interceptors()) as channel:
        yield ctx, pb_grpc.BuildServiceStub(channel), known


def test_a_tenant_beyond_its_active_builds_is_resource_exhausted(served):
    ctx, stub, known = served
    acme, globex = known.metadata("acme"), known.metadata("globex")
    first = stub.CreateBuild(_request(request_id="one"), metadata=acme, timeout=10)
    second = stub.CreateBuild(_request(), metadata=acme, timeout=10)
    assert sorted(active_build_ids(ctx.store, "acme")) == sorted([first.build_id, second.build_id])

    for request in (_request(), _request(request_id="three")):
        error = rpc_error(lambda: stub.CreateBuild(request, metadata=acme, timeout=10))  # noqa: B023
        assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
        assert error.details() == ("max_active_builds_per_tenant: tenant 'acme' has 2 queued or running builds, "
                                   "the most it may have at once (2); retry when one has ended, or cancel one")
    # A retry of a request already made answers with its build, at the quota or not.
    assert stub.CreateBuild(_request(request_id="one"), metadata=acme, timeout=10).build_id == first.build_id
    # Another tenant's quota is its own.
    assert stub.CreateBuild(_request(), metadata=globex, timeout=10).state == pb.BUILD_STATE_QUEUED

    # A cancel request alone frees nothing (the build runs to its next stage boundary); its end does.
    stub.CancelBuild(pb.CancelBuildRequest(build_id=second.build_id), metadata=acme, timeout=10)
    assert rpc_error(lambda: stub.CreateBuild(_request(), metadata=acme, timeout=10)).code() == \
        grpc.StatusCode.RESOURCE_EXHAUSTED
    BuildRecords(ctx.store, second.build_id, "acme").record_failure("vote", "CANCELLED", "cancelled by the caller")
    assert active_build_ids(ctx.store, "acme") == [first.build_id]
    third = stub.CreateBuild(_request(), metadata=acme, timeout=10)
    assert third.state == pb.BUILD_STATE_QUEUED
    ctx.store.put_bytes(BuildRecords(ctx.store, first.build_id, "acme").manifest_key, b"{}")  # succeeded
    assert active_build_ids(ctx.store, "acme") == [third.build_id]
