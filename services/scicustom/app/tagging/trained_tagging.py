"""`scicustom tagger retag`: tag the stored corpus with a Tagger and point the unit index at it.

Incremental: an item is tagged again only when there are no tags for it under this tagger version
or its text changed since (a digest of the tagged text is kept beside the tags). The index is
rebuilt when anything changed and `index/current.json` names this tagger, as `corpus tag` does
for the zero-shot baseline. A tagger that reads sentence vectors gets the corpus's stored ones (only
an item without one is embedded), so a retag costs what it did before the head.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass

from scicustom.app.index_keys import CURRENT_INDEX_KEY
from scicustom.app.ingest.item_embeddings import StoredEmbeddings
from scicustom.core.errors import PreconditionFailed
from scicustom.core.progress import Progress, no_progress
from scicustom.ports import CorpusRepository, Embedder, ObjectStore, Tagger, TaggerArtifacts, UnitIndexWriter


@dataclass
class RetagReport:
    tagger_version: str
    items: int
    tagged: int
    items_per_s: float
    non_scientific: int
    index_key: str


def text_digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def retag_corpus(repo: CorpusRepository, tagger: Tagger, unit_ids: Sequence[str], non_scientific_id: str | None,
                 index_writer: UnitIndexWriter, batch: int = 4096, progress: Progress = no_progress,
                 stored: StoredEmbeddings | None = None) -> RetagReport:
    items = repo.load_items()
    if not items:
        raise PreconditionFailed("the corpus is empty; run `scicustom corpus import` first")
    version = tagger.version
    tags = repo.load_tags(version)
    digests = repo.load_text_digests(version)
    todo = [it for it in items if it.id not in tags or digests.get(it.id) != text_digest(it.text)]
    started = time.perf_counter()
    for start in range(0, len(todo), batch):
        chunk = todo[start : start + batch]
        vectors = stored.vectors(chunk)[0] if stored else None
        for item, assigned in zip(chunk, tagger.tag([it.text for it in chunk], vectors), strict=True):
            tags[item.id] = [(s.unit_id, s.score) for s in assigned]
            digests[item.id] = text_digest(item.text)
        progress("retag", start + len(chunk), len(todo))
    rate = len(todo) / max(time.perf_counter() - started, 1e-9) if todo else 0.0
    live = {it.id for it in items}
    stale = (set(tags) | set(digests)) - live
    tags = {k: v for k, v in tags.items() if k in live}
    digests = {k: v for k, v in digests.items() if k in live}
    if todo or stale:
        repo.save_tags(version, tags)
        repo.save_text_digests(version, digests)
    index_key = f"index/{version}/unit_index.npz"
    if todo or stale or not repo.store.exists(index_key):
        index_writer.write(index_key, tags, list(unit_ids))
    # The trained tagger reads text, not vectors: the embedder the corpus was embedded with stays recorded.
    previous = json.loads(repo.store.get_bytes(CURRENT_INDEX_KEY)) if repo.store.exists(CURRENT_INDEX_KEY) else {}
    current = {"tagger_version": version, "index_key": index_key}
    if "embedder" in previous:
        current["embedder"] = previous["embedder"]
    repo.store.put_bytes(CURRENT_INDEX_KEY, json.dumps(current, indent=1).encode())
    n_non = sum(1 for v in tags.values() if v and v[0][0] == non_scientific_id)
    return RetagReport(version, len(items), len(todo), rate, n_non, index_key)


def retag_with_trained(repo: CorpusRepository, artifacts: TaggerArtifacts, version: str | None,
                       index_writer: UnitIndexWriter, embedder: Embedder,
                       progress: Progress = no_progress) -> RetagReport:
    """`tagger retag`: the trained version (default: the current one) tags the corpus and becomes current;
    `embedder`: the platform's, whose stored vectors its head reads."""
    artifact = artifacts.load(version)
    stored = StoredEmbeddings(repo, embedder) if artifact.head else None
    return retag_corpus(repo, artifacts.tagger(artifact, embedder=embedder), artifact.unit_ids,
                        artifact.non_scientific_id, index_writer, progress=progress, stored=stored)


def use_served_tagger(store: ObjectStore, version: str, embedder_name: str) -> dict[str, str]:
    """Makes the trained `version` (what the tagger model server serves) the current index of a
    store whose search index the ingest workers fill (the cluster's): builds and the tag worker
    then use that tagger. Records `embedder_name`, the model the items are embedded with."""
    if not version.startswith("trained-"):
        raise PreconditionFailed(f"the served tagger's version {version!r} is not a trained version")
    current = {"tagger_version": version, "index_key": f"index/{version}/unit_index.npz", "embedder": embedder_name}
    store.put_bytes(CURRENT_INDEX_KEY, json.dumps(current, indent=1).encode())
    return current
