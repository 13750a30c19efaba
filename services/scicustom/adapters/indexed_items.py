"""Checks every SearchIndex adapter applies to items before storing them, so both reject alike."""

from __future__ import annotations

import math
from collections.abc import Collection, Sequence
from dataclasses import replace

import numpy as np

from scicustom.ports import IndexedItem


def checked_items(items: Sequence[IndexedItem], unit_ids: Collection[str], dims: int) -> list[IndexedItem]:
    """The items with units made distinct (first occurrence kept) and embeddings as float32 rows.

    ValueError for an empty id, a unit outside the catalog, a non-finite score, or an embedding of
    the wrong size, with a non-finite value, or of zero length (cosine is undefined for it).
    """
    checked = []
    for item in items:
        if not item.id:
            raise ValueError("an indexed item needs an id")
        unknown = [u for u in item.units if u not in unit_ids]
        if unknown:
            raise ValueError(f"item {item.id}: unknown unit(s) {', '.join(unknown)}")
        if not math.isfinite(item.quality) or (item.hardness is not None and not math.isfinite(item.hardness)):
            raise ValueError(f"item {item.id}: hardness (when scored) and quality must be finite")
        vector = np.asarray(item.embedding, dtype=np.float32).reshape(-1)
        check_vector(vector, dims, f"item {item.id}")
        checked.append(replace(item, units=tuple(dict.fromkeys(item.units)), embedding=vector))
    return checked


def check_vector(vector: np.ndarray, dims: int, what: str) -> None:
    if vector.shape != (dims,):
        raise ValueError(f"{what}: embedding has shape {vector.shape}, the index holds {dims} dimensions")
    if not np.all(np.isfinite(vector)) or not np.any(vector):
        raise ValueError(f"{what}: embedding must be finite and non-zero")
