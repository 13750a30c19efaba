"""Stage workers wait out an outage within the budget, then fail the build naming the outage; a
failure that cannot be recorded leaves the record uncommitted so it is delivered again."""

from __future__ import annotations

import threading

from scicustom.builds.servicer import BuildServicer
from scicustom.builds.v1 import builds_pb2 as pb
from scicustom.builds.worker import BuildStageHandler
from scicustom.workers.stage_consumer import StageWorker, WorkerOptions
from scicustom.workers.topics import Topics
from scicustom.workers.transient_errors import is_transient
from tests.unit.workers.conftest import SyntheticWorlds, create_build

TOPICS = Topics("t")


class OutageStore:
    """The build store with outage switches: reads, writes, or reading build specs raise ConnectionError."""

    def __init__(self, store) -> None:
        self.store = store
        self.reads_down = self.writes_down = self.spec_down = False

    def _check(self, down: bool, key: str) -> None:
        if down:
            raise ConnectionError("connection refused: object store")

    def get_bytes(self, key):
        self._check(self.reads_down or (self.spec_down and key.endswith("/spec.json")), key)
        return self.store.get_bytes(key)

    def exists(self, key):
        self._check(self.reads_down, key)
        return self.store.exists(key)

    def list_keys(self, prefix):
        self._check(self.reads_down, prefix)
        return self.store.list_keys(prefix)

    def put_bytes(self, key, data):
        self._check(self.writes_down, key)
        self.store.put_bytes(key, data)

    def delete(self, key):
        self._check(self.writes_down, key)
        self.store.delete(key)


class FakeClock:
    """Sleeping advances the clock: a 5-minute budget passes in no real time."""

    def __init__(self, on_sleep=lambda now: None) -> None:
        self.now, self.sleeps, self.on_sleep = 0.0, [], on_sleep

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds
        self.on_sleep(self.now)


def _run_vote(ctx, clock: FakeClock, until, budget_s: float = 300.0) -> StageWorker:
    worker = StageWorker(ctx.event_bus, TOPICS, BuildStageHandler("vote", ctx, TOPICS, SyntheticWorlds()),
                         WorkerOptions(max_attempts=2, backoff_s=1.0, poll_timeout_s=0.02, outage_budget_s=budget_s,
                                       max_backoff_s=30.0), sleep=clock.sleep, clock=clock)
    stop = threading.Event()
    thread = threading.Thread(target=worker.run, args=(stop,))
    thread.start()
    try:
        for _ in range(500):
            if until(worker):
                break
            thread.join(0.02)
    finally:
        stop.set()
        thread.join()
    assert until(worker), "the worker did not get there"
    return worker


def _state(ctx, build_id: str) -> pb.Build:
    return BuildServicer(ctx).GetBuild(pb.GetBuildRequest(build_id=build_id), None)


def test_a_short_outage_is_waited_out_and_the_stage_completes(ctx):
    build = create_build(ctx)
    store = ctx.store = OutageStore(ctx.store)
    store.reads_down = True
    clock = FakeClock(on_sleep=lambda now: setattr(store, "reads_down", now < 100))
    worker = _run_vote(ctx, clock, lambda w: w.stats.handled == 1)
    assert worker.stats.dead_lettered == 0 and clock.now >= 100
    assert max(clock.sleeps) <= 30.0 and clock.sleeps[1] > clock.sleeps[0] * 0.9  # capped, growing backoff
    assert _state(ctx, build.build_id).state == pb.BUILD_STATE_RUNNING


def test_an_outage_past_the_budget_fails_the_build_naming_it(ctx):
    build = create_build(ctx)
    store = ctx.store = OutageStore(ctx.store)
    store.spec_down = True  # the stage's input stays unreadable; recording the failure still works
    clock = FakeClock()
    worker = _run_vote(ctx, clock, lambda w: w.stats.dead_lettered == 1, budget_s=120.0)
    assert 120.0 <= clock.now <= 121.0 and sum(clock.sleeps) == clock.now  # never sleeps past the budget
    store.spec_down = False
    final = _state(ctx, build.build_id)
    assert final.state == pb.BUILD_STATE_FAILED
    assert final.error.startswith("vote: outage: gave up after 120 s") and "connection refused" in final.error
    assert worker.stats.handled == 0


def test_a_failure_that_cannot_be_written_leaves_the_record_uncommitted(ctx):
    build = create_build(ctx)
    store = ctx.store = OutageStore(ctx.store)
    store.reads_down = store.writes_down = True
    clock = FakeClock()
    _run_vote(ctx, clock, lambda w: clock.now > 200.0, budget_s=60.0)  # gave up, could not say so, rejoined
    store.reads_down = False
    assert _state(ctx, build.build_id).state == pb.BUILD_STATE_QUEUED  # not failed, not committed
    store.writes_down = False
    worker = _run_vote(ctx, FakeClock(), lambda w: w.stats.handled == 1)  # the record comes again
    assert worker.stats.dead_lettered == 0 and _state(ctx, build.build_id).state == pb.BUILD_STATE_RUNNING


def test_bad_input_is_not_an_outage():
    assert is_transient(ConnectionRefusedError()) and is_transient(TimeoutError())
    try:
        try:
            raise ConnectionResetError("reset")
        except OSError as exc:
            raise RuntimeError("put failed") from exc
    except RuntimeError as wrapped:
        assert is_transient(wrapped)
    assert not is_transient(ValueError("bad spec")) and not is_transient(KeyError("missing"))
