"""Batch files: content ids, canonical lines, exact embedding round trips, the 1000-item limit."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scicustom.app.ingest.item_batches import (
    MAX_BATCH_ITEMS,
    TaggedItem,
    batch_id_of,
    imported_bytes,
    is_batch_id,
    parse_imported,
    parse_tagged,
    tagged_line,
    write_imported,
)
from scicustom.core.corpus_item import make_item
from scicustom.core.errors import UnreadableBatch

words = st.text(st.characters(codec="utf-8", exclude_categories=("Cs", "Cc")), min_size=1, max_size=30).filter(
    lambda s: s.strip())


@st.composite
def items(draw):
    question = draw(words)
    if draw(st.booleans()):
        options = draw(st.lists(words, min_size=2, max_size=5))
        return make_item("src", "CC0", draw(st.text(max_size=10)), question, options,
                         draw(st.integers(0, len(options) - 1)))
    return make_item("src", "CC0", "", question, [], None, draw(words))


@settings(max_examples=60, deadline=None)
@given(st.lists(items(), min_size=1, max_size=12), st.randoms())
def test_batch_content_is_order_free_and_round_trips(batch, rng):
    data = imported_bytes(batch)
    shuffled = list(batch)
    rng.shuffle(shuffled)
    assert imported_bytes(shuffled) == data
    parsed = parse_imported(data, "k")
    assert [it.id for it in parsed.items] == sorted({it.id for it in batch})
    assert set(parsed.items) <= set(batch)
    assert not parsed.skipped
    batch_id = batch_id_of({"source": "src"}, data)
    assert is_batch_id(batch_id)
    assert batch_id != batch_id_of({"source": "other"}, data)


@settings(max_examples=60, deadline=None)
@given(items(), st.lists(st.floats(width=32, allow_nan=False, allow_infinity=False), min_size=1, max_size=40),
       st.lists(st.tuples(st.sampled_from(["u1", "u2"]), st.floats(-5, 5)), max_size=3))
def test_tagged_lines_keep_embeddings_and_scores_exactly(item, values, tags):
    vector = np.array(values, dtype=np.float32)
    (parsed,), skipped = parse_tagged(tagged_line(TaggedItem(item, tags, "emb", vector)), "k")
    assert not skipped
    assert parsed.item == item and parsed.tags == tags and parsed.embedder == "emb"
    assert parsed.embedding.dtype == np.float32
    np.testing.assert_array_equal(parsed.embedding, vector)


def test_a_batch_holds_at_most_1000_items(tmp_path):
    from scicustom.adapters.filesystem_store import FilesystemObjectStore

    store = FilesystemObjectStore(tmp_path)
    many = [make_item("s", "CC0", "", f"Question {k}?", [], None, "yes") for k in range(MAX_BATCH_ITEMS + 1)]
    with pytest.raises(ValueError, match="at most 1000"):
        write_imported(store, {"source": "s"}, many)
    with pytest.raises(ValueError, match="at least one"):
        write_imported(store, {"source": "s"}, [])
    written = write_imported(store, {"source": "s"}, many[:MAX_BATCH_ITEMS] + many[:3])  # repeats count once
    assert written.count == MAX_BATCH_ITEMS
    with pytest.raises(UnreadableBatch, match="above the limit"):
        parse_imported(imported_bytes(many[:MAX_BATCH_ITEMS]) + imported_bytes(many[-1:]), "k")


def test_text_that_is_not_utf8_is_poison():
    with pytest.raises(UnreadableBatch, match="not UTF-8"):
        parse_imported(b"\xff\xfe{}", "ingest/batches/x/imported.jsonl")
