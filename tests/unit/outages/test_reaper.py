"""The reaper requeues builds whose heartbeat stopped, then fails them; a fake clock drives it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from scicustom.app.build.build_records import BuildRecords
from scicustom.app.build.reaper import BuildReaper, Reaped, Requeue
from scicustom.builds.servicer import BuildServicer
from scicustom.builds.v1 import builds_pb2 as pb
from scicustom.workers.build_reaper import announce
from scicustom.workers.topics import Topics
from tests.unit.outages.test_create_build_publish_first import FailingFlush
from tests.unit.workers.conftest import create_build, run_workers

TOPICS = Topics("t")


class Clock:
    def __init__(self) -> None:
        self.now = datetime.now(UTC)

    def __call__(self) -> datetime:
        return self.now


def _has(ctx, build_id: str, stage: str):
    return lambda workers: ctx.store.exists(BuildRecords(ctx.store, build_id).stage_key(stage))


def _state(ctx, build_id: str) -> pb.Build:
    return BuildServicer(ctx).GetBuild(pb.GetBuildRequest(build_id=build_id), None)


def test_a_stalled_build_is_requeued_at_its_pending_stage_then_failed(ctx):
    build = create_build(ctx).build_id
    run_workers(ctx, _has(ctx, build, "vote"), stages=("vote",))  # then the candidates worker "dies"
    clock = Clock()
    reaper = BuildReaper(ctx, timeout_s=600, max_requeues=1, now=clock)
    assert reaper.sweep() == []                           # it beat just now
    clock.now += timedelta(seconds=601)
    (requeue,) = reaper.sweep()
    assert isinstance(requeue, Requeue)
    assert (requeue.build_id, requeue.stage, requeue.requeues) == (build, "candidates", 1)
    assert requeue.predecessor.key == BuildRecords(ctx.store, build).stage_key("vote")
    assert reaper.sweep() == []                           # the requeue is a sign of life too
    announce(ctx.event_bus, TOPICS, requeue)
    run_workers(ctx, _has(ctx, build, "candidates"), stages=("candidates",))  # the republished event runs it
    clock.now += timedelta(hours=1)                       # and now cutoff stalls, past the requeue budget
    (reaped,) = reaper.sweep()
    assert isinstance(reaped, Reaped) and reaped.stage == "cutoff" and "no progress for" in reaped.reason
    final = _state(ctx, build)
    assert final.state == pb.BUILD_STATE_FAILED and final.error.startswith("cutoff: no progress for")
    clock.now += timedelta(hours=1)
    assert reaper.sweep() == []                           # an ended build is left alone


def test_a_build_whose_request_never_went_out_is_announced_by_the_reaper(ctx):
    bus = ctx.event_bus
    ctx.event_bus = FailingFlush(bus, failures=1)
    with pytest.raises(ConnectionError):
        create_build(ctx, request_id="lost")
    ctx.event_bus = bus
    consumer = bus.consumer(TOPICS.group("vote"), [TOPICS.consumed_by("vote")])
    for _ in consumer.poll(max_records=10, timeout_s=0.05):
        pass  # the event a failed flush may or may not have delivered: consumed and lost
    consumer.commit()
    consumer.close()
    (build,) = [b.build_id for b in BuildServicer(ctx).ListBuilds(pb.ListBuildsRequest(), None).builds]
    clock = Clock()
    clock.now += timedelta(seconds=700)
    (requeue,) = BuildReaper(ctx, timeout_s=600, max_requeues=3, now=clock).sweep()
    assert requeue.stage == "vote" and requeue.predecessor.key == BuildRecords(ctx.store, build).spec_key
    announce(ctx.event_bus, TOPICS, requeue)
    run_workers(ctx, _has(ctx, build, "vote"), stages=("vote",))
    assert _state(ctx, build).state == pb.BUILD_STATE_RUNNING
