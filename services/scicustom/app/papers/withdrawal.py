"""A superseded paper's instances leave the corpus and the index.

When a changed version of a paper (same DOI/PMID) is parsed, the earlier version is superseded
(paper_stages._supersede) and its item batches are withdrawn: their corpus shards (items, scores,
tags, embeddings), their search-index entries and their indexed markers are deleted, and
`papers/<id>/withdrawn.json` records what went. Builds and retags after that never see them.

A batch of the old version may still be on its way through tag/index while this runs: the index
stage asks `batch_withdrawn` before it writes and again after, and withdraws what it just wrote
when the paper was superseded meanwhile, so no order of the two leaves the old items indexed.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from scicustom.app.ingest.item_batches import BatchKeys, parse_imported
from scicustom.app.ingest.search_indexing import unmark_batch
from scicustom.app.papers.paper_records import EXTRACTORS, PaperKeys
from scicustom.app.stored_json import read_json, write_json
from scicustom.ports import CorpusRepository, ObjectStore, SearchIndex


@dataclass(frozen=True)
class Withdrawn:
    paper_id: str
    batches: list[str]
    items: int           # items whose batches were withdrawn
    removed_from_index: int


def paper_batch_ids(store: ObjectStore, paper_id: str) -> list[str]:
    """The item batches the paper's extractors wrote, in extractor order."""
    keys = PaperKeys(paper_id)
    reports = (read_json(store, keys.report(e)) for e in EXTRACTORS)
    return [str(r["batch_id"]) for r in reports if r is not None and r.get("batch_id")]


def batch_withdrawn(store: ObjectStore, batch_id: str) -> bool:
    """True when the batch came from a paper that a newer version superseded."""
    meta = read_json(store, BatchKeys(batch_id).meta)
    origin = str((meta or {}).get("origin", ""))
    return bool(origin) and not origin.startswith("packaged:") and store.exists(PaperKeys(origin).superseded)


def withdraw_batches(store: ObjectStore, corpus: CorpusRepository, index: Callable[[], SearchIndex],
                     batch_ids: list[str]) -> tuple[int, int]:
    """Deletes the batches' shards, index entries and indexed markers; returns (items, removed from index).
    `index` is opened only for a batch the index stage reached (the embedded profile has none)."""
    items, indexed = 0, []
    for batch_id in batch_ids:
        key = BatchKeys(batch_id).imported
        ids = [it.id for it in parse_imported(store.get_bytes(key), key).items] if store.exists(key) else []
        items += len(ids)
        if store.exists(BatchKeys(batch_id).indexed):
            indexed += ids
        corpus.remove_batch(batch_id)
        unmark_batch(store, batch_id)
    if not indexed:
        return items, 0
    # An item the new version also made (same question, same id) stays: its batch holds it too.
    live = {it.id for it in corpus.load_items()}  # read once, after every batch's shards are gone
    return items, index().delete_items([i for i in indexed if i not in live])


def withdraw_paper(store: ObjectStore, corpus: CorpusRepository, index: Callable[[], SearchIndex],
                   paper_id: str) -> Withdrawn:
    """Withdraws every batch of a superseded paper (idempotent: a second call finds nothing left)."""
    batches = paper_batch_ids(store, paper_id)
    items, removed = withdraw_batches(store, corpus, index, batches)
    previous = read_json(store, PaperKeys(paper_id).withdrawn) or {}
    done = Withdrawn(paper_id, batches, max(items, int(previous.get("items", 0))),
                     int(previous.get("removed_from_index", 0)) + removed)
    write_json(store, PaperKeys(paper_id).withdrawn,
               {"batches": batches, "items": done.items, "removed_from_index": done.removed_from_index})
    return done
