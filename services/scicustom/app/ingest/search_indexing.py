"""Index the corpus of record into a SearchIndex: `scicustom corpus index` and the ingest workers.

The items tagged by one tagger version go in with their units, text, intrinsic scores and
embedding. Missing embeddings and intrinsic scores are computed first (and stored, as `corpus tag`
and `corpus scores` would). Which ids an index already holds is kept in the store per index name
and tagger version as marker files, one per chunk or batch that was indexed (each written by one
writer, so concurrent indexers lose no update); a rerun indexes only what is missing.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass

from tqdm import tqdm

from scicustom.app.ingest.intrinsic_scoring import ensure_intrinsic_scores
from scicustom.app.ingest.item_embeddings import item_embeddings
from scicustom.core.canonical_json import canonical_bytes
from scicustom.core.errors import InvalidInput, PreconditionFailed
from scicustom.ports import AnswerPerplexity, CorpusRepository, Embedder, IndexedItem, ObjectStore, SearchIndex

DEFAULT_CHUNK = 500
_INDEX_NAME = re.compile(r"[a-z0-9][a-z0-9._-]{0,254}")


def marker_prefix(index_name: str, tagger_version: str) -> str:
    if not _INDEX_NAME.fullmatch(index_name):
        raise InvalidInput("index", f"{index_name!r} is not an index name (lowercase letters, digits, . _ -)")
    return f"index/{tagger_version}/search-indexed/{index_name}/"


def mark_indexed(store: ObjectStore, index_name: str, tagger_version: str, name: str, ids: Sequence[str]) -> None:
    store.put_bytes(f"{marker_prefix(index_name, tagger_version)}{name}.json", canonical_bytes(sorted(ids)))


def unmark_batch(store: ObjectStore, batch_id: str) -> int:
    """Deletes the batch's indexed markers (every tagger version and index); returns how many."""
    name = f"batch-{batch_id}.json"
    keys = [k for k in store.list_keys("index/") if "/search-indexed/" in k and k.rsplit("/", 1)[-1] == name]
    for key in keys:
        store.delete(key)
    return len(keys)


def indexed_ids(store: ObjectStore, index_name: str, tagger_version: str) -> set[str]:
    done: set[str] = set()
    for key in store.list_keys(marker_prefix(index_name, tagger_version)):
        done.update(json.loads(store.get_bytes(key)))
    return done


@dataclass
class SearchIndexingReport:
    tagger_version: str
    index: str
    tagged: int           # items with tags of this version
    already_indexed: int
    indexed: int
    embedded: int         # embeddings computed because they were missing
    scored: int           # intrinsic scores computed because they were missing
    items_per_s: float    # bulk indexing rate


def index_corpus(repo: CorpusRepository, search_index: SearchIndex, index_name: str, tagger_version: str,
                 embedder: Embedder, perplexity: AnswerPerplexity, *, chunk: int = DEFAULT_CHUNK,
                 reindex: bool = False, show_progress: bool = True) -> SearchIndexingReport:
    if chunk < 1:
        raise InvalidInput("--chunk", "must be >= 1")
    store = repo.store
    tags = repo.load_tags(tagger_version)
    if not tags:
        raise PreconditionFailed(f"no item is tagged by {tagger_version}; run `scicustom corpus tag`")
    done = set() if reindex else indexed_ids(store, index_name, tagger_version)
    tagged = [it for it in repo.load_items() if it.id in tags]
    todo = [it for it in tagged if it.id not in done]
    report = SearchIndexingReport(tagger_version, index_name, len(tagged), len(tagged) - len(todo), 0, 0, 0, 0.0)
    if not todo:
        return report
    vectors, report.embedded, _ = item_embeddings(repo, embedder, todo, show_progress=show_progress)
    scoring = ensure_intrinsic_scores(repo, perplexity, todo, show_progress=show_progress)
    report.scored, scores = scoring.computed, scoring.scores
    started = time.perf_counter()
    bar = tqdm(total=len(todo), desc="index items", unit=" item", disable=not show_progress)
    for start in range(0, len(todo), chunk):
        rows = range(start, min(start + chunk, len(todo)))
        batch = [IndexedItem(todo[r].id, tuple(u for u, _ in tags[todo[r].id]), todo[r].text,
                             hardness=scores[todo[r].id][1], quality=scores[todo[r].id][0], embedding=vectors[r])
                 for r in rows]
        report.indexed += search_index.index_items(batch)
        ids = sorted(item.id for item in batch)
        mark_indexed(store, index_name, tagger_version,
                     f"chunk-{hashlib.sha256(chr(31).join(ids).encode()).hexdigest()[:16]}", ids)
        bar.update(len(batch))
    bar.close()
    report.items_per_s = report.indexed / max(time.perf_counter() - started, 1e-9)
    return report
