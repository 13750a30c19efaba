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
