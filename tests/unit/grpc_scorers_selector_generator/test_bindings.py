"""The three bindings in the runtime `scicustom service` builds: health, reflection, the full
interceptor chain."""

from __future__ import annotations

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

from scicustom.commands.service import SERVICES, server_interceptors
from scicustom.generator import servicer as generator
from scicustom.grpc_server.server import start_server
from scicustom.scorers import servicer as scorers
from scicustom.selector import servicer as selector
from scicustom.selector.v1 import selector_pb2, selector_pb2_grpc
from tests.support.grpc_loopback import invalid_field
from tests.unit.grpc_scorers_selector_generator.corpus_world import tagged_context

NAMES = ["scicustom.selector.v1.SelectorService", "scicustom.generator.v1.GeneratorService",
         "scicustom.scorers.v1.ScorerService"]


def test_served_with_health_reflection_and_status_mapping(tmp_path):
    ctx = tagged_context(tmp_path)
    bindings = [selector.binding(ctx), generator.binding(ctx), scorers.binding(ctx)]
    assert [b.name for b in bindings] == NAMES
    assert [SERVICES[k] for k in ("selector", "generator", "scorer")] == [
        selector.__name__, generator.__name__, scorers.__name__]
    server, _, port = start_server(bindings, "127.0.0.1", 0, max_message_bytes=1 << 20,
                                   interceptors=server_interceptors())
    try:
        with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
            health = health_pb2_grpc.HealthStub(channel)
            for name in ["", *NAMES]:
                status = health.Check(health_pb2.HealthCheckRequest(service=name), timeout=5).status
                assert status == health_pb2.HealthCheckResponse.SERVING
            reflection = reflection_pb2_grpc.ServerReflectionStub(channel)
            (answer,) = reflection.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(
                list_services="")]), timeout=5)
            assert set(NAMES) <= {s.name for s in answer.list_services_response.service}
            stub = selector_pb2_grpc.SelectorServiceStub(channel)
            request = selector_pb2.SelectProxySubsetRequest(items=[selector_pb2.ScoredItem(id="a")], k2=5000)
            assert invalid_field(lambda: stub.SelectProxySubset(request, timeout=5)) == \
                "k2: 5000 is above the limit 1000"
    finally:
        server.stop(None)
