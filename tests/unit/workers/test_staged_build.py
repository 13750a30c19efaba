"""A build through BuildService and the six stage workers on the in-memory bus equals the
embedded one-process build byte for byte; redeliveries, cancellation and failures behave."""

from __future__ import annotations

import json

import pytest

from scicustom.app.build.build_records import BUILD_STAGES, BuildRecords
from scicustom.app.build.output_files import render_files
from scicustom.app.build.request import JuryOptions
from scicustom.builds.servicer import BuildServicer
from scicustom.builds.v1 import builds_pb2 as pb
from scicustom.core.build.pipeline import METHODS, BuildParams, BuildPipeline
from scicustom.core.build.stage_records import CandidateList, CutoffStage, Generated, Selection, VotedUnits
from scicustom.core.errors import InvalidInput, NotFound, PreconditionFailed
from scicustom.core.requirement import requirement_from_text
from scicustom.events.v1 import events_pb2 as ev
from scicustom.workers.topics import Topics
from tests.support.synthetic_world import synthetic_world
from tests.unit.workers.conftest import (
    TEXT,
    VERSIONS,
    StubContext,
    SyntheticWorlds,
    create_build,
    run_workers,
    terminal,
)


def _embedded_files(params: BuildParams) -> dict[str, str]:
    requirement = requirement_from_text(TEXT)
    result = BuildPipeline(synthetic_world()).run(requirement, params)
    return render_files(requirement, params, JuryOptions(relevance_quantile=0.75), VERSIONS, result, None)


def _files(ctx: StubContext, build_id: str) -> dict[str, str]:
    build = BuildServicer(ctx).GetBuild(pb.GetBuildRequest(build_id=build_id), None)
    assert build.state == pb.BUILD_STATE_SUCCEEDED, build
    return {f.name: ctx.store.get_bytes(f.key).decode() for f in build.files}


@pytest.mark.parametrize("method", ["scicustom", "embedding-filtering", "greedy-topk"])
def test_staged_build_equals_embedded_build_byte_for_byte(ctx, method):
    build = create_build(ctx, method=method)
    assert build.state == pb.BUILD_STATE_QUEUED
    run_workers(ctx, terminal(ctx, build.build_id))
    files = _files(ctx, build.build_id)
    expected = _embedded_files(BuildParams(method=method, k1=2, k2=20, proxy_samples=10, seed=1))
    assert list(files) == list(expected)
    for name in expected:
        assert files[name] == expected[name], name
    state = BuildRecords(ctx.store, build.build_id).state()
    assert [s for s, done, _ in state.stages if done] == list(BUILD_STAGES)


def test_redelivered_events_change_nothing_and_repeat_event_ids(ctx):
    build = create_build(ctx)
    run_workers(ctx, terminal(ctx, build.build_id))
    before = {k: ctx.store.get_bytes(k) for k in ctx.store.list_keys(f"builds/{build.build_id}/")}
    topics = Topics("t")
    # Replay every stage's input, as Kafka does when a worker dies before its commit.
    replay = ctx.event_bus.consumer("replay", [topics.consumed_by(s) for s in BUILD_STAGES])
    records = replay.poll(max_records=100, timeout_s=0.1)
    assert len(records) == len(BUILD_STAGES)
    for record in records:
        ctx.event_bus.send(record.topic, record.value, key=record.key, headers=record.headers)
    completed = ctx.event_bus.consumer("done", [topics.of("build.completed")])
    worlds = SyntheticWorlds()
    # Each replayed input is handled, and so is every duplicate its predecessor re-announced.
    expected = list(range(1, len(BUILD_STAGES) + 1))
    run_workers(ctx, lambda workers: [w.stats.handled for w in workers] == expected, worlds=worlds)
    assert worlds.assembled == 0  # every stage found its record: nothing was computed again
    after = {k: ctx.store.get_bytes(k) for k in ctx.store.list_keys(f"builds/{build.build_id}/")}
    assert after == before
    done = [ev.Envelope.FromString(r.value) for r in completed.poll(max_records=20, timeout_s=0.1)]
    assert len(done) == 1 + len(BUILD_STAGES) and len({e.event_id for e in done}) == 1


def test_cancelled_build_stops_at_the_next_stage(ctx):
    build = create_build(ctx)
    cancelled = BuildServicer(ctx).CancelBuild(pb.CancelBuildRequest(build_id=build.build_id), None)
    assert cancelled.state == pb.BUILD_STATE_QUEUED  # it stops when a worker next looks
    run_workers(ctx, terminal(ctx, build.build_id))
    final = BuildServicer(ctx).GetBuild(pb.GetBuildRequest(build_id=build.build_id), None)
    assert final.state == pb.BUILD_STATE_CANCELLED and "CancelBuild" in final.error
    assert not final.files


class _BrokenWorlds(SyntheticWorlds):
    def get(self, requirement, seed, jury):
        raise PreconditionFailed("the corpus is empty; run `make setup`")


def test_a_stage_that_cannot_run_fails_the_build_with_its_reason(ctx):
    build = create_build(ctx)
    failed = ctx.event_bus.consumer("failed", [Topics("t").of("build.failed")])
    run_workers(ctx, terminal(ctx, build.build_id), worlds=_BrokenWorlds())
    final = BuildServicer(ctx).GetBuild(pb.GetBuildRequest(build_id=build.build_id), None)
    assert final.state == pb.BUILD_STATE_FAILED and final.error == "vote: the corpus is empty; run `make setup`"
    (event,) = [ev.Envelope.FromString(r.value) for r in failed.poll(max_records=10, timeout_s=0.1)]
    assert event.build_failed.code == "FAILED_PRECONDITION" and event.build_id == build.build_id


def test_create_build_validates_fields_and_is_idempotent_on_request_id(ctx):
    servicer = BuildServicer(ctx)
    with pytest.raises(InvalidInput, match=r"^requirement:"):
        servicer.CreateBuild(pb.CreateBuildRequest(), None)
    with pytest.raises(InvalidInput, match=r"^k2:"):
        servicer.CreateBuild(pb.CreateBuildRequest(requirement_text=TEXT, k2=5000), None)
    with pytest.raises(InvalidInput, match=r"^method:"):
        servicer.CreateBuild(pb.CreateBuildRequest(requirement_text=TEXT, method="magic"), None)
    with pytest.raises(InvalidInput, match=r"^requirement_yaml:"):
        servicer.CreateBuild(pb.CreateBuildRequest(requirement_yaml="description: [unclosed"), None)
    with pytest.raises(InvalidInput, match=r"^relevance_quantile:"):
        servicer.CreateBuild(pb.CreateBuildRequest(requirement_text=TEXT, relevance_quantile=0.2), None)
    first = create_build(ctx, request_id="r-1")
    again = create_build(ctx, request_id="r-1")
    assert first.build_id == again.build_id
    assert create_build(ctx, request_id="r-2").build_id != first.build_id
    with pytest.raises(NotFound, match=r"^build_id:"):
        servicer.GetBuild(pb.GetBuildRequest(build_id="b-unknown"), None)
    listed = servicer.ListBuilds(pb.ListBuildsRequest(page_size=1), None)
    assert len(listed.builds) == 1 and listed.next_page_token
    rest = servicer.ListBuilds(pb.ListBuildsRequest(page_size=10, page_token=listed.next_page_token), None)
    assert len(rest.builds) == 1 and not rest.next_page_token


@pytest.mark.parametrize("method", METHODS)
def test_stage_records_round_trip_exactly_through_json(method):
    world = synthetic_world()
    pipeline = BuildPipeline(world)
    requirement = requirement_from_text(TEXT)
    params = BuildParams(method=method, k1=2, k2=15, proxy_samples=5)
    voted = pipeline.stage_vote(requirement, params)
    listed = pipeline.stage_candidates(requirement, params, voted)
    cut = pipeline.stage_cutoff(requirement, params, voted, listed)
    selection = pipeline.stage_select(params, listed, cut)
    generated = pipeline.stage_generate(requirement, params, listed, selection)
    for value, kind in ((voted, VotedUnits), (listed, CandidateList), (cut, CutoffStage), (selection, Selection),
                        (generated, Generated)):
        assert kind.from_record(json.loads(json.dumps(value.to_record()))) == value


@pytest.mark.parametrize("floor", [1, 1000])
def test_the_thin_coverage_floor_of_the_request_is_the_one_a_distributed_build_applies(ctx, floor):
    build = create_build(ctx, min_items=floor)
    run_workers(ctx, terminal(ctx, build.build_id))
    final = BuildServicer(ctx).GetBuild(pb.GetBuildRequest(build_id=build.build_id), None)
    assert final.state == pb.BUILD_STATE_SUCCEEDED and final.n_mcq >= 1
    assert final.coverage_status == ("ok" if final.n_mcq >= floor else "thin")
    config = json.loads(ctx.store.get_bytes(BuildRecords(ctx.store, build.build_id).output_key("config.json")))
    assert config["coverage"]["min_items"] == floor
