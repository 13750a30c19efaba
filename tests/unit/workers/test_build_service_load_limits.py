"""Streams cannot starve health or unary calls: with every WatchBuild slot held (on a small server of
6 threads, 2 reserved for health), health checks and GetBuild still answer at once, the next stream
is refused RESOURCE_EXHAUSTED, and a watcher that leaves gives its slot back without waiting out a poll."""

from __future__ import annotations

import threading
import time

import grpc
import pytest
from grpc_health.v1 import health_pb2, health_pb2_grpc

from scicustom.builds.servicer import SERVICE_NAME, BuildServicer
from scicustom.builds.v1 import builds_pb2 as pb
from scicustom.builds.v1 import builds_pb2_grpc as pb_grpc
from scicustom.commands.service import server_interceptors
from scicustom.grpc_server.capacity import ServerCapacity, default_capacity
from scicustom.grpc_server.concurrency_limits import ConcurrencyLimitInterceptor
from scicustom.grpc_server.server import ServiceBinding, start_server
from tests.support.grpc_loopback import PROBE_SERVICE, probe_binding, rpc_error
from tests.unit.workers.conftest import TEXT, StubContext

WATCH = "/scicustom.builds.v1.BuildService/WatchBuild"
CAPACITY = ServerCapacity(max_workers=6, health_reserve=2, max_streams=3, stream_limits={WATCH.lstrip("/"): 3},
                          default_stream_limit=1, max_queued=16, keepalive=default_capacity().keepalive)


class Served:
    def __init__(self, ctx: StubContext, held: threading.Event) -> None:
        # A poll far longer than the test: only the call's end can wake a watcher in time.
        servicer = BuildServicer(ctx, watch_poll_s=60.0)
        builds = ServiceBinding(SERVICE_NAME,
                                lambda server: pb_grpc.add_BuildServiceServicer_to_server(servicer, server))
        probe = probe_binding({"Held": lambda request, context: b"done" if held.wait(20) else b"timeout"})
        chain = server_interceptors(CAPACITY)
        self.limiter = next(i for i in chain if isinstance(i, ConcurrencyLimitInterceptor))
        self.server, _, port = start_server([builds, probe], "127.0.0.1", 0, max_message_bytes=1 << 20,
                                            interceptors=chain, capacity=CAPACITY)
        self.channel = grpc.insecure_channel(f"127.0.0.1:{port}")
        self.stub = pb_grpc.BuildServiceStub(self.channel)

    def health(self, service: str = "") -> int:
        request = health_pb2.HealthCheckRequest(service=service)
        return int(health_pb2_grpc.HealthStub(self.channel).Check(request, timeout=0.5).status)

    def watch(self, build_id: str):
        call = self.stub.WatchBuild(pb.WatchBuildRequest(build_id=build_id), timeout=30)
        first = next(call)  # the first state: the stream holds its slot and a server thread now
        assert first.build.build_id == build_id
        return call

    def wait_for(self, condition, timeout_s: float = 2.0) -> float:
        start = time.monotonic()
        while not condition():
            assert time.monotonic() - start < timeout_s, "timed out"
            time.sleep(0.01)
        return time.monotonic() - start


@pytest.fixture
def served(ctx: StubContext):
    held = threading.Event()
    served = Served(ctx, held)
    yield served, held
    held.set()
    served.channel.close()
    served.server.stop(None)


def test_with_every_watch_slot_held_health_and_get_build_answer_and_the_next_stream_is_refused(served):
    s, _ = served
    build = s.stub.CreateBuild(pb.CreateBuildRequest(requirement_text=TEXT, k1=2, k2=20), timeout=5)
    watchers = [s.watch(build.build_id) for _ in range(3)]  # no worker runs: the build stays queued
    assert s.limiter.running(WATCH) == 3

    assert s.health() == s.health(SERVICE_NAME) == health_pb2.HealthCheckResponse.SERVING
    assert s.stub.GetBuild(pb.GetBuildRequest(build_id=build.build_id), timeout=1).build_id == build.build_id
    error = rpc_error(lambda: next(s.stub.WatchBuild(pb.WatchBuildRequest(build_id=build.build_id), timeout=5)))
    assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert error.details() == ("scicustom.builds.v1.BuildService/WatchBuild is at its limit of 3 open streams; "
                               "retry later")

    watchers[0].cancel()  # the caller leaves: its slot comes back long before the 60 s poll would end
    assert s.wait_for(lambda: s.limiter.running(WATCH) == 2) < 2.0
    watchers.append(s.watch(build.build_id))
    for call in watchers[1:]:
        call.cancel()
    s.wait_for(lambda: s.limiter.running() == 0)


def test_with_every_call_slot_held_health_still_answers_and_the_next_call_is_refused(served):
    s, held = served
    build = s.stub.CreateBuild(pb.CreateBuildRequest(requirement_text=TEXT, k1=2, k2=20), timeout=5)
    watchers = [s.watch(build.build_id) for _ in range(3)]
    held_call = s.channel.unary_unary(f"/{PROBE_SERVICE}/Held").future(b"", timeout=20)
    s.wait_for(lambda: s.limiter.running() == CAPACITY.max_in_flight)  # 3 streams + 1 unary: 4 of 6 threads

    for _ in range(5):
        assert s.health() == health_pb2.HealthCheckResponse.SERVING  # on the 2 reserved threads
    error = rpc_error(lambda: s.stub.GetBuild(pb.GetBuildRequest(build_id=build.build_id), timeout=1))
    assert error.code() == grpc.StatusCode.RESOURCE_EXHAUSTED
    assert error.details() == "the server is at its limit of 4 calls in flight; retry later"

    held.set()
    assert held_call.result(timeout=5) == b"done"
    assert s.stub.GetBuild(pb.GetBuildRequest(build_id=build.build_id), timeout=1).build_id == build.build_id
    for call in watchers:
        call.cancel()
    s.wait_for(lambda: s.limiter.running() == 0)
