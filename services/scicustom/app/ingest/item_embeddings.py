"""Embeddings of corpus items, computed once per item and embedder and kept with the corpus."""

from __future__ import annotations

import time
from collections.abc import Sequence

import numpy as np
from tqdm import tqdm

from scicustom.core.corpus_item import CorpusItem
from scicustom.ports import CorpusRepository, Embedder


def item_embeddings(repo: CorpusRepository, embedder: Embedder, items: Sequence[CorpusItem],
                    batch: int = 2048, show_progress: bool = True) -> tuple[np.ndarray, int, float]:
    """Rows aligned with `items`; embeds and stores only the missing ones. Returns (matrix, new, items/s)."""
    ids, matrix = repo.load_embeddings(embedder.name)
    known = {item_id: row for row, item_id in enumerate(ids)}
    missing = [it for it in items if it.id not in known]
    rate = 0.0
    if missing:
        started = time.perf_counter()
        bar = tqdm(total=len(missing), desc="embed items", unit=" item", disable=not show_progress)
        for start in range(0, len(missing), batch):
            chunk = missing[start : start + batch]
            repo.add_embeddings(embedder.name, [it.id for it in chunk], embedder.encode([it.text for it in chunk]))
            bar.update(len(chunk))
        bar.close()
        rate = len(missing) / max(time.perf_counter() - started, 1e-9)
        ids, matrix = repo.load_embeddings(embedder.name)
        known = {item_id: row for row, item_id in enumerate(ids)}
    return matrix[[known[it.id] for it in items]], len(missing), rate


class StoredEmbeddings:
    """The vectors stored under one embedder's name, read once (on first use), for a process that
    embeds batch after batch (the tag worker). An item id is a content hash of the item, and the
    embedder's name names the model, so a stored row under this name is the vector a fresh encode
    gives: `vectors` encodes only the items with no stored row. The snapshot is not refreshed; rows
    stored after it was read are embedded again (the same vectors), never missed."""

    def __init__(self, repo: CorpusRepository, embedder: Embedder) -> None:
        self.repo = repo
        self.embedder = embedder
        self._row: dict[str, int] | None = None
        self._matrix = np.zeros((0, 0), dtype=np.float32)

    def _load(self) -> dict[str, int]:
        if self._row is None:
            ids, self._matrix = self.repo.load_embeddings(self.embedder.name)
            self._row = {item_id: row for row, item_id in enumerate(ids)}
        return self._row

    @property
    def stored(self) -> int:
        return len(self._load())

    def vectors(self, items: Sequence[CorpusItem]) -> tuple[np.ndarray, int]:
        """Rows aligned with `items` (float32) and how many of them were embedded now."""
        if not items:
            return np.zeros((0, 0), dtype=np.float32), 0
        row = self._load()
        missing = [i for i, it in enumerate(items) if it.id not in row]
        fresh = (np.asarray(self.embedder.encode([items[i].text for i in missing]), dtype=np.float32)
                 if missing else np.zeros((0, 0), dtype=np.float32))
        if len(missing) == len(items):
            return fresh, len(missing)
        stored = self._matrix
        if missing and fresh.shape[1] != stored.shape[1]:
            raise ValueError(f"stored {self.embedder.name} vectors have {stored.shape[1]} dimensions, "
                             f"the embedder gives {fresh.shape[1]}")
        out = np.empty((len(items), stored.shape[1]), dtype=np.float32)
        present = [i for i, it in enumerate(items) if it.id in row]
        out[present] = stored[[row[items[i].id] for i in present]]
        if missing:
            out[missing] = fresh
        return out, len(missing)


def seed_embeddings(source: CorpusRepository, target: CorpusRepository, model: str,
                    shard_rows: int = 8192) -> tuple[int, int]:
    """Copies the vectors `source` stores under `model` that `target` lacks into `target` (append-only
    shards of at most `shard_rows`), e.g. a local home's into a new cluster's object store before a
    corpus is ingested there. Returns (copied, already there)."""
    ids, matrix = source.load_embeddings(model)
    have = set(target.load_embeddings(model)[0])
    rows = [r for r, item_id in enumerate(ids) if item_id not in have]
    for start in range(0, len(rows), shard_rows):
        chunk = rows[start : start + shard_rows]
        target.add_embeddings(model, [ids[r] for r in chunk], matrix[chunk])
    return len(rows), len(ids) - len(rows)
