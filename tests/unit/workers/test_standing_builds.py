"""Builds that follow the literature: `since_build_id` (diff.json) and standing builds, rebuilt when
enough newly indexed items carry their voted units (app/build/standing.py, builds/standing_worker.py)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from scicustom.app.build.build_records import BuildRecords
from scicustom.app.ingest.item_batches import BatchKeys, TaggedItem, tagged_line
from scicustom.builds.servicer import BuildServicer
from scicustom.builds.standing_worker import StandingCountHandler, StandingNotifyHandler
from scicustom.builds.v1 import builds_pb2 as pb
from scicustom.core.corpus_item import make_item
from scicustom.core.errors import InvalidInput
from scicustom.events.v1 import events_pb2 as ev
from scicustom.workers.envelopes import envelope, ref_of
from scicustom.workers.topics import Topics
from tests.unit.workers.conftest import create_build, run_workers, terminal

TOPICS = Topics("t")


def _indexed_batch(ctx, batch_id: str, units_per_item: list[list[str]]) -> ev.Envelope:
    lines = b""
    for k, units in enumerate(units_per_item):
        item = make_item("paper", "CC-BY-4.0", "", f"new question {batch_id} {k}?", ["a", "b"], 0)
        lines += tagged_line(TaggedItem(item, [(u, 0.9) for u in units], "test", np.ones(4, dtype=np.float32)))
    key = BatchKeys(batch_id).tagged
    ctx.store.put_bytes(key, lines)
    body = ev.ItemsBatch(items=ref_of(ctx.store, key), count=len(units_per_item), source="paper",
                         tagger_version="v")
    return envelope("ingest.items-indexed", batch_id=batch_id, items_batch=body)


def _voted(ctx, build_id: str) -> list[str]:
    return list(BuildRecords(ctx.store, build_id).stage_record("vote")["votes"]["units"])


def test_a_build_since_another_gains_diff_json_and_says_which_it_was_compared_with(ctx):
    first = create_build(ctx)
    run_workers(ctx, terminal(ctx, first.build_id))
    second = create_build(ctx, since_build_id=first.build_id, k2=8)
    run_workers(ctx, terminal(ctx, second.build_id))
    final = BuildServicer(ctx).GetBuild(pb.GetBuildRequest(build_id=second.build_id), None)
    assert final.state == pb.BUILD_STATE_SUCCEEDED and final.since_build_id == first.build_id
    assert "diff.json" in [f.name for f in final.files]
    diff = json.loads(ctx.store.get_bytes(BuildRecords(ctx.store, second.build_id).output_key("diff.json")))
    assert diff["previous"] == first.build_id and diff["questions"]["removed"]
    assert diff["questions"]["n_after"] == final.n_mcq


def test_since_build_id_must_name_a_succeeded_build(ctx):
    with pytest.raises(InvalidInput, match=r"^since_build_id: no build 'b-nope'"):
        create_build(ctx, since_build_id="b-nope")
    with pytest.raises(InvalidInput, match=r"^since_build_id: .* is not a build id"):
        create_build(ctx, since_build_id="../x")
    queued = create_build(ctx)
    with pytest.raises(InvalidInput, match=r"^since_build_id: build .* has not succeeded"):
        create_build(ctx, since_build_id=queued.build_id)
    with pytest.raises(InvalidInput, match=r"^standing_min_new_items: 200000 is above the limit"):
        create_build(ctx, standing_min_new_items=200000)


def test_a_standing_build_is_rebuilt_once_enough_new_items_carry_its_voted_units(ctx):
    first = create_build(ctx, standing_min_new_items=3)
    assert first.standing_id
    run_workers(ctx, terminal(ctx, first.build_id))
    voted = _voted(ctx, first.build_id)
    count, notify = StandingCountHandler(ctx, TOPICS), StandingNotifyHandler(ctx, TOPICS)
    # Two relevant items and one off-topic item: below the threshold, nothing happens.
    batch = _indexed_batch(ctx, "a" * 32, [[voted[0]], [voted[0], "u-other"], ["u-other"]])
    assert count.handle(batch) == []
    assert count.handle(batch) == []  # a redelivered batch is not counted twice
    assert count.standing.get(first.standing_id).pending == 2
    (out,) = count.handle(_indexed_batch(ctx, "b" * 32, [[voted[-1]]]))
    assert out.topic == "t.build.requested"
    new_id = out.envelope.build_id
    record = count.standing.get(first.standing_id)
    assert record.latest_build_id == new_id and record.pending == 0 and record.builds == [first.build_id, new_id]
    # The consumer loop publishes what the handler returns; here the test does.
    ctx.event_bus.send(out.topic, out.envelope.SerializeToString(), key=new_id)
    run_workers(ctx, terminal(ctx, new_id))
    rebuilt = BuildServicer(ctx).GetBuild(pb.GetBuildRequest(build_id=new_id), None)
    assert rebuilt.state == pb.BUILD_STATE_SUCCEEDED
    assert rebuilt.since_build_id == first.build_id and rebuilt.standing_id == first.standing_id
    completed = envelope("build.completed", build_id=new_id, build_completed=ev.BuildCompleted(n_mcq=rebuilt.n_mcq))
    (updated,) = notify.handle(completed)
    assert updated.topic == "t.build.updated"
    body = updated.envelope.build_updated
    assert body.standing_id == first.standing_id and body.previous_build_id == first.build_id
    assert body.n_mcq == rebuilt.n_mcq and body.diff.key.endswith("/output/diff.json")
    # A plain build's completion is not an update.
    plain = envelope("build.completed", build_id=first.build_id, build_completed=ev.BuildCompleted(n_mcq=1))
    assert notify.handle(plain) == []
