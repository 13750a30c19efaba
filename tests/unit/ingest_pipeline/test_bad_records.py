"""Bad records inside a readable batch are counted under their reason and skipped; the rest flows."""

from __future__ import annotations

import json

from scicustom.app.ingest.item_batches import BatchKeys, batch_id_of, batch_state, item_record
from scicustom.core.canonical_json import canonical_bytes
from scicustom.core.corpus_item import make_item
from scicustom.workers.topics import ITEMS_INDEXED
from tests.unit.ingest_pipeline.conftest import envelopes, run_workers
from tests.unit.ingest_pipeline.test_pipeline_flow import _publish_imported


def _line(record: object) -> bytes:
    return canonical_bytes(record) + b"\n"


def test_each_bad_record_is_counted_under_its_reason(ctx):
    good = make_item("hand", "CC0", "", "Is a virus alive?", ["Yes", "No"], 1)
    # Hardness is not scored at ingestion (builds score it), so even an unscorable item is indexed.
    unscorable = make_item("hand", "CC0", "", "An unscorable virus question?", ["A", "B"], 0)
    rogue = make_item("hand", "CC0", "", "A rogue quasar question?", ["A", "B"], 0)
    tampered = {**item_record(make_item("hand", "CC0", "", "Bone?", ["A", "B"], 0)), "answer_index": 1}
    one_option = {**item_record(good), "options": ["Yes"], "answer_index": 0}
    data = b"".join([_line(item_record(good)), b"{not json\n", _line([1, 2]), _line(tampered), _line(one_option),
                     _line(item_record(good)), b"\n", _line(item_record(unscorable)), _line(item_record(rogue))])
    meta = {"source": "hand"}
    batch_id = batch_id_of(meta, data)
    ctx.store.put_bytes(BatchKeys(batch_id).meta, canonical_bytes({**meta, "batch_id": batch_id, "count": 8}))
    ctx.store.put_bytes(BatchKeys(batch_id).imported, data)
    _publish_imported(ctx, batch_id)
    run_workers(ctx, lambda: bool(envelopes(ctx.event_bus, ITEMS_INDEXED)))
    (indexed,) = envelopes(ctx.event_bus, ITEMS_INDEXED)
    assert indexed.items_batch.count == 2
    kept = sorted([good.id, unscorable.id])
    assert ctx.search_index.item_ids() == kept
    report = json.loads(ctx.store.get_bytes(BatchKeys(batch_id).indexed))
    assert report["read"] == 8 and report["tagged"] == 2 and report["indexed"] == 2
    assert report["item_ids"] == kept
    assert report["skipped"] == {
        "tag: duplicate item in the batch": 1,
        "tag: fewer than two options": 1,
        "tag: id does not match the item's content": 1,
        "tag: line is not JSON": 1,
        "tag: record is not a JSON object": 1,
        "tag: the tagger assigned unit(s) outside the catalog: u-missing": 1,
    }
    state = batch_state(ctx.store, batch_id)
    assert state is not None and state.state == "indexed"
    assert {it.id for it in ctx.corpus.load_items()} == set(kept)
    assert ctx.perplexity.pairs == 0
