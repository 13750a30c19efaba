"""The embedded profile's last step of paper ingestion: the papers' item batches go into the corpus of
record as shards (what the cluster's index stage also writes), ready for `scicustom corpus tag`,
which tags them and rebuilds the unit index builds read."""

from __future__ import annotations

from collections.abc import Sequence

from scicustom.app.ingest.item_batches import BatchKeys, parse_imported
from scicustom.ports import CorpusRepository


def add_batches_to_corpus(corpus: CorpusRepository, batch_ids: Sequence[str]) -> int:
    """Writes each batch's items as a corpus shard (idempotent: a batch's shard has fixed bytes)."""
    added = 0
    for batch_id in dict.fromkeys(batch_ids):
        key = BatchKeys(batch_id).imported
        items = parse_imported(corpus.store.get_bytes(key), key).items
        if items:
            corpus.save_item_shard(batch_id, items)
            added += len(items)
    return added
