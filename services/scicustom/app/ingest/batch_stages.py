"""The two steps of the ingestion pipeline on one stored batch, each idempotent on the batch id.

tag:   imported.jsonl -> embed (Embedder) + tag (Tagger) -> tagged.jsonl
index: tagged.jsonl -> quality (core.intrinsic) -> the search index and the corpus of record
       (per-batch shards) -> indexed.json

Hardness (answer perplexity, ~0.1-0.5 s an item on CPU) is not scored here: builds score it, and
cache it, for the few hundred items that can enter a proxy subset (app/ingest/intrinsic_scoring.py),
so indexing runs at the rate of embedding and tagging. The index stores no hardness (None).

A step whose output exists returns what it recorded and writes nothing, so a redelivered event
costs no model call and changes no byte. A bad record is counted under its reason and skipped;
the workers (ingest/worker.py) and the benchmark's in-process path call these functions alike.
"""

from __future__ import annotations

import json
import math
import time
from collections import Counter
from dataclasses import dataclass
from typing import Any

import numpy as np

from scicustom.app.ingest.item_batches import (
    BatchKeys,
    TaggedItem,
    parse_imported,
    parse_tagged,
    tagged_line,
)
from scicustom.app.ingest.item_embeddings import StoredEmbeddings
from scicustom.app.ingest.search_indexing import mark_indexed
from scicustom.app.papers.withdrawal import batch_withdrawn, withdraw_batches
from scicustom.core.canonical_json import canonical_bytes
from scicustom.core.intrinsic import quality_score
from scicustom.core.units import UnitCatalog
from scicustom.ports import (
    CorpusRepository,
    Embedder,
    IndexedItem,
    ObjectStore,
    SearchIndex,
    Tagger,
)


@dataclass(frozen=True)
class StepOutcome:
    batch_id: str
    count: int            # items that came through the step
    tagger_version: str
    report: dict[str, Any]


def _read_json(store: ObjectStore, key: str) -> dict[str, Any]:
    return dict(json.loads(store.get_bytes(key)))


def tag_batch(store: ObjectStore, batch_id: str, imported: bytes, source: str, embedder: Embedder,
              tagger: Tagger, catalog: UnitCatalog, stored: StoredEmbeddings | None = None) -> StepOutcome:
    """Embeds and tags the batch's items; `imported` is the verified imported.jsonl. With `stored`
    (the vectors already stored under this embedder's name) only the items without one are embedded."""
    keys = BatchKeys(batch_id)
    if store.exists(keys.tagged) and store.exists(keys.tag_report):
        report = _read_json(store, keys.tag_report)
        return StepOutcome(batch_id, int(report["tagged"]), str(report["tagger_version"]), report)
    parsed = parse_imported(imported, keys.imported)
    items, skipped = parsed.items, Counter(parsed.skipped)
    texts = [it.text for it in items]
    started = time.perf_counter()
    if stored is not None and stored.embedder is not embedder:
        raise ValueError("the stored embeddings are of another embedder")
    reused = 0
    if stored is not None:
        vectors, fresh = stored.vectors(items)
        reused = len(items) - fresh
    else:
        vectors = embedder.encode(texts) if items else np.zeros((0, 0), dtype=np.float32)
    embedded = time.perf_counter()
    # A row that is not finite is skipped below; zeroed here so that it cannot fail the batch's tagging.
    assigned = tagger.tag(list(texts), np.nan_to_num(vectors, nan=0.0, posinf=0.0, neginf=0.0)) if items else []
    tagged_at = time.perf_counter()
    known_units = {u.id for u in catalog.units}
    non_scientific = catalog.non_scientific()
    lines, n_non = [], 0
    for item, vector, units in zip(items, vectors, assigned, strict=True):
        unknown = sorted({s.unit_id for s in units} - known_units)
        if unknown:
            skipped[f"the tagger assigned unit(s) outside the catalog: {', '.join(unknown[:3])}"] += 1
            continue
        row = np.asarray(vector, dtype=np.float32)
        if not np.all(np.isfinite(row)) or not np.any(row):
            skipped["embedding is zero or not finite"] += 1
            continue
        # As `corpus tag` and `tagger retag` store them: the tagger's units best first, Non-Scientific alone.
        tags = [(s.unit_id, float(s.score)) for s in units]
        n_non += bool(non_scientific and tags and tags[0][0] == non_scientific.id)
        lines.append(tagged_line(TaggedItem(item, tags, embedder.name, row)))
    report = {
        "batch_id": batch_id, "source": source, "tagger_version": tagger.version, "embedder": embedder.name,
        "read": len(items) + sum(parsed.skipped.values()), "tagged": len(lines), "non_scientific": n_non,
        "skipped": dict(sorted(skipped.items())),
        "seconds": {"embedding": round(embedded - started, 4), "tagging": round(tagged_at - embedded, 4)},
    }
    if stored is not None:
        report["reused_embeddings"] = reused
    store.put_bytes(keys.tag_report, canonical_bytes(report))
    store.put_bytes(keys.tagged, b"".join(lines))  # written last: its presence means the step is done
    return StepOutcome(batch_id, len(lines), tagger.version, report)


def index_batch(store: ObjectStore, repo: CorpusRepository, batch_id: str, tagged: bytes, tagger_version: str,
                search_index: SearchIndex, index_name: str) -> StepOutcome:
    """Scores, indexes and registers the batch's tagged items; `tagged` is the verified tagged.jsonl."""
    keys = BatchKeys(batch_id)
    if store.exists(keys.indexed):
        report = _read_json(store, keys.indexed)
        return StepOutcome(batch_id, int(report["indexed"]), str(report["tagger_version"]), report)
    if batch_withdrawn(store, batch_id):  # its paper was superseded before it got here: index nothing
        report = {"batch_id": batch_id, "tagger_version": tagger_version, "index": index_name, "indexed": 0,
                  "item_ids": [], "withdrawn": True}
        store.put_bytes(keys.indexed, canonical_bytes(report))
        return StepOutcome(batch_id, 0, tagger_version, report)
    good, skipped = parse_tagged(tagged, keys.tagged)
    lines_read = len(good) + sum(skipped.values())
    dims = Counter(len(t.embedding) for t in good).most_common(1)
    for t in good:
        if len(t.embedding) != dims[0][0]:
            skipped["embedding size differs from the batch's"] += 1
    good = [t for t in good if len(t.embedding) == dims[0][0]]
    scoring = time.perf_counter()
    quality = {t.item.id: round(quality_score(t.item.question, t.item.answer), 6) for t in good}
    quality_s = time.perf_counter() - scoring
    kept = []
    for t in good:
        if math.isfinite(quality[t.item.id]):
            kept.append(t)
        else:
            skipped["quality is not finite"] += 1
    # The corpus of record: one shard per kind, written only by this batch, so no update is lost.
    repo.save_item_shard(batch_id, [t.item for t in kept])
    repo.save_tags_shard(tagger_version, batch_id, {t.item.id: t.tags for t in kept})
    for model in sorted({t.embedder for t in kept}):
        rows = [t for t in kept if t.embedder == model]
        repo.save_embeddings_shard(model, batch_id, [t.item.id for t in rows], np.stack([t.embedding for t in rows]))
    indexing = time.perf_counter()
    indexed = search_index.index_items([
        IndexedItem(t.item.id, tuple(u for u, _ in t.tags), t.item.text, hardness=None,
                    quality=quality[t.item.id], embedding=t.embedding) for t in kept]) if kept else 0
    done = time.perf_counter()
    mark_indexed(store, index_name, tagger_version, f"batch-{batch_id}", [t.item.id for t in kept])
    tag_report = _read_json(store, keys.tag_report) if store.exists(keys.tag_report) else {}
    every_skip = {**{f"tag: {r}": n for r, n in tag_report.get("skipped", {}).items()},
                  **{f"index: {r}": n for r, n in skipped.items()}}
    report = {
        "batch_id": batch_id, "source": tag_report.get("source", ""), "tagger_version": tagger_version,
        "index": index_name, "read": int(tag_report.get("read", lines_read)), "tagged": lines_read,
        "indexed": indexed, "item_ids": [t.item.id for t in kept],
        "skipped": dict(sorted(every_skip.items())),
        "seconds": {**tag_report.get("seconds", {}), "quality": round(quality_s, 4),
                    "indexing": round(done - indexing, 4)},
    }
    if batch_withdrawn(store, batch_id):  # superseded while it was being indexed: take it out again
        store.put_bytes(keys.indexed, canonical_bytes(report))  # what withdraw_batches looks for
        withdraw_batches(store, repo, lambda: search_index, [batch_id])
        report = {**report, "indexed": 0, "item_ids": [], "withdrawn": True}
    store.put_bytes(keys.indexed, canonical_bytes(report))  # written last: the step is done
    return StepOutcome(batch_id, int(report["indexed"]), tagger_version, report)
