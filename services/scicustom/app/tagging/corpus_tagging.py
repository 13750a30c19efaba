"""`scicustom corpus tag`: embed every item once, tag it with the calibrated zero-shot tagger, and
rebuild the unit index.

Incremental: only items without a stored embedding are embedded, only items without tags for the
current tagger version are tagged.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from scicustom.app.index_keys import CALIBRATION_KEY, CURRENT_INDEX_KEY
from scicustom.app.ingest.item_embeddings import item_embeddings
from scicustom.core.corpus_item import CorpusItem
from scicustom.core.errors import PreconditionFailed
from scicustom.core.units import UnitCatalog
from scicustom.core.zero_shot_tagger import (
    NON_SCIENCE_SUBJECTS,
    SCIENCE_SUBJECTS,
    ZeroShotParams,
    ZeroShotTagger,
    calibrate_threshold,
)
from scicustom.ports import CorpusRepository, Embedder, ObjectStore, UnitIndexWriter


@dataclass
class TaggingReport:
    tagger_version: str
    items: int
    embedded: int
    embed_items_per_s: float
    tagged: int
    tag_items_per_s: float
    threshold: float
    calibration_balanced_accuracy: float
    non_scientific: int


def _calibrate(repo: CorpusRepository, tagger_probe: ZeroShotTagger, items: Sequence[CorpusItem],
               vectors: np.ndarray, fingerprint: str) -> tuple[float, float]:
    store = repo.store
    if store.exists(CALIBRATION_KEY):
        saved = json.loads(store.get_bytes(CALIBRATION_KEY))
        if saved.get("fingerprint") == fingerprint:
            return float(saved["threshold"]), float(saved["balanced_accuracy"])
    rows = [i for i, it in enumerate(items) if it.source == "mmlu"
            and it.subject in SCIENCE_SUBJECTS | NON_SCIENCE_SUBJECTS]
    if len(rows) < 50:
        raise PreconditionFailed("zero-shot calibration needs MMLU items; run `scicustom corpus import`")
    best = tagger_probe.similarity(vectors[rows]).max(axis=1)
    is_science = np.array([items[i].subject in SCIENCE_SUBJECTS for i in rows])
    threshold = calibrate_threshold(best, is_science)
    predicted = best >= threshold
    balanced = float((predicted[is_science].mean() + (~predicted[~is_science]).mean()) / 2)
    store.put_bytes(CALIBRATION_KEY, json.dumps({
        "fingerprint": fingerprint, "threshold": threshold, "balanced_accuracy": balanced,
        "n_science": int(is_science.sum()), "n_non_science": int((~is_science).sum()),
    }, indent=1).encode())
    return threshold, balanced


def zero_shot_threshold(store: ObjectStore) -> float:
    """The threshold `corpus tag` calibrated; PreconditionFailed before the first `corpus tag`."""
    if not store.exists(CALIBRATION_KEY):
        raise PreconditionFailed("the zero-shot tagger is not calibrated; run `scicustom corpus tag`")
    return float(json.loads(store.get_bytes(CALIBRATION_KEY))["threshold"])


def tag_corpus(repo: CorpusRepository, embedder: Embedder, catalog: UnitCatalog, index_writer: UnitIndexWriter,
               show_progress: bool = True) -> TaggingReport:
    items = repo.load_items()
    if not items:
        raise PreconditionFailed("the corpus is empty; run `scicustom corpus import` first")
    vectors, embedded, embed_rate = item_embeddings(repo, embedder, items, show_progress=show_progress)
    probe = ZeroShotTagger(embedder, catalog, ZeroShotParams(threshold=0.0))
    # Recalibrate when the embedder, any unit text (e.g. keywords arrive) or the corpus changes:
    # a threshold calibrated on a slice must not stay once the full corpus is imported.
    unit_text = "\n".join(u.describe() for u in catalog.units)
    fingerprint = hashlib.sha256(f"{embedder.name}\n{len(items)}\n{unit_text}".encode()).hexdigest()
    threshold, balanced = _calibrate(repo, probe, items, vectors, fingerprint)
    tagger = ZeroShotTagger(embedder, catalog, ZeroShotParams(threshold=threshold))
    tags = repo.load_tags(tagger.version)
    todo = [i for i, it in enumerate(items) if it.id not in tags]
    started = time.perf_counter()
    for start in range(0, len(todo), 4096):
        rows = todo[start : start + 4096]
        for row, assigned in zip(rows, tagger.tag_vectors(vectors[rows]), strict=True):
            tags[items[row].id] = [(s.unit_id, s.score) for s in assigned]
    tag_rate = len(todo) / max(time.perf_counter() - started, 1e-9) if todo else 0.0
    live = {it.id for it in items}
    tags = {k: v for k, v in tags.items() if k in live}
    if todo:
        repo.save_tags(tagger.version, tags)
    index_key = f"index/{tagger.version}/unit_index.npz"
    if todo or not repo.store.exists(index_key):
        index_writer.write(index_key, tags, [u.id for u in catalog.units])
    # A trained tagger, once retagged in, stays the current one: this baseline does not replace it.
    # Either way every item now has a vector from `embedder`, which builds will read: record it.
    recorded = json.loads(repo.store.get_bytes(CURRENT_INDEX_KEY)) if repo.store.exists(CURRENT_INDEX_KEY) else {}
    current = dict(recorded)
    if not current or str(current.get("tagger_version", "")).startswith("zeroshot-"):
        current = {"tagger_version": tagger.version, "index_key": index_key}
    current["embedder"] = embedder.name
    if current != recorded:
        repo.store.put_bytes(CURRENT_INDEX_KEY, json.dumps(current, indent=1).encode())
    non_sci = catalog.non_scientific()
    n_non = sum(1 for v in tags.values() if non_sci is not None and v and v[0][0] == non_sci.id)
    return TaggingReport(tagger.version, len(items), embedded, embed_rate, len(todo), tag_rate,
                         threshold, balanced, n_non)
