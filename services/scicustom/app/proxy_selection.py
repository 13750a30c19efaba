"""The proxy subset on its own (SelectorService's use case): `core.build.proxy_subset` on the stored
embeddings and either the caller's scores or the stored intrinsic scores (computed and stored first
where missing, as a build's selection stage does)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from scicustom.app.components import Components
from scicustom.app.field_checks import bounded, checked_list
from scicustom.app.ingest.intrinsic_scoring import ensure_intrinsic_scores
from scicustom.core.build.proxy_subset import ProxyResult, select_proxy_subset
from scicustom.core.errors import InvalidInput, NotFound, PreconditionFailed

MAX_ITEMS = 20000
MAX_ID_CHARS = 256
MAX_K2 = 1000
DEFAULT_K2 = 100         # the paper's K2
MAX_SAMPLES = 1000
DEFAULT_SAMPLES = 100    # the paper's N candidate subsets


@dataclass(frozen=True)
class ScoredItemInput:
    id: str
    hardness: float | None = None  # answer perplexity
    quality: float | None = None   # Flesch reading ease


@dataclass(frozen=True)
class ProxySelection:
    ids: list[str]             # the request's ids, in request order
    hardness: np.ndarray
    quality: np.ndarray
    subset: ProxyResult
    embedder: str
    scores_source: str         # "request" or "stored"
    scores_computed: int       # stored scores that had to be computed first


def checked_ids(items: Sequence[ScoredItemInput]) -> list[str]:
    checked_list(items, "items", MAX_ITEMS)
    first: dict[str, int] = {}
    for i, item in enumerate(items):
        if not item.id.strip():
            raise InvalidInput(f"items[{i}].id", "is empty")
        if len(item.id) > MAX_ID_CHARS:
            raise InvalidInput(f"items[{i}].id", f"has {len(item.id)} characters, above the limit {MAX_ID_CHARS}")
        if item.id in first:
            raise InvalidInput(f"items[{i}].id", f"{item.id!r} repeats items[{first[item.id]}]")
        first[item.id] = i
    return [item.id for item in items]


def given_scores(items: Sequence[ScoredItemInput]) -> tuple[np.ndarray, np.ndarray] | None:
    """(hardness, quality) from the request, or None when no item carries scores."""
    if not any(item.hardness is not None or item.quality is not None for item in items):
        return None
    hardness, quality = [], []
    for i, item in enumerate(items):
        for name, value in (("hardness", item.hardness), ("quality", item.quality)):
            if value is None:
                raise InvalidInput(f"items[{i}].{name}", "is missing: give hardness and quality for every item "
                                                         "or for none")
        assert item.hardness is not None and item.quality is not None
        if not math.isfinite(item.hardness) or item.hardness <= 0:
            raise InvalidInput(f"items[{i}].hardness", f"{item.hardness} is not a perplexity (finite, > 0)")
        if not math.isfinite(item.quality):
            raise InvalidInput(f"items[{i}].quality", f"{item.quality} is not finite")
        hardness.append(item.hardness)
        quality.append(item.quality)
    return np.array(hardness, dtype=np.float64), np.array(quality, dtype=np.float64)


class ProxySelector:
    def __init__(self, components: Components) -> None:
        self.components = components

    def select(self, items: Sequence[ScoredItemInput], k2: int, samples: int, seed: int,
               still_wanted: Callable[[], None]) -> ProxySelection:
        """`k2`, `samples` 0 take the paper's values; `still_wanted` raises once the caller has gone."""
        ids = checked_ids(items)
        kept = bounded(k2, "k2", MAX_K2, DEFAULT_K2)
        drawn = bounded(samples, "samples", MAX_SAMPLES, DEFAULT_SAMPLES)
        scores = given_scores(items)
        source = "request" if scores is not None else "stored"
        embeddings = self._embeddings(ids)
        still_wanted()
        computed = 0
        if scores is None:
            scores, computed = self._stored_scores(ids)
            still_wanted()
        hardness, quality = scores
        subset = select_proxy_subset(embeddings, hardness, quality, kept, drawn, seed)
        return ProxySelection(ids, hardness, quality, subset, self.components.embedder.name, source, computed)

    def _embeddings(self, ids: Sequence[str]) -> np.ndarray:
        """The stored vectors of the items, in request order."""
        embedder = self.components.embedder
        stored_ids, matrix = self.components.corpus.load_embeddings(embedder.name)
        if not stored_ids:
            raise PreconditionFailed(f"no corpus item is embedded with {embedder.name} yet; "
                                     "run `scicustom corpus tag`")
        row_of = {item_id: row for row, item_id in enumerate(stored_ids)}
        for i, item_id in enumerate(ids):
            if item_id not in row_of:
                raise NotFound(f"items[{i}].id", f"{item_id!r} is not a corpus item with a stored embedding")
        return np.asarray(matrix[[row_of[i] for i in ids]])

    def _stored_scores(self, ids: Sequence[str]) -> tuple[tuple[np.ndarray, np.ndarray], int]:
        """(hardness, quality) of the stored intrinsic scores, and how many had to be computed."""
        corpus = self.components.corpus
        by_id = {it.id: it for it in corpus.load_items()}
        if not by_id:
            raise PreconditionFailed("the corpus is empty; run `scicustom corpus import`")
        for i, item_id in enumerate(ids):
            if item_id not in by_id:
                raise NotFound(f"items[{i}].id", f"{item_id!r} is not a corpus item")
        report = ensure_intrinsic_scores(corpus, self.components.perplexity, [by_id[i] for i in ids],
                                         show_progress=False)
        known = report.scores
        quality = np.array([known[i][0] for i in ids], dtype=np.float64)
        hardness = np.array([known[i][1] for i in ids], dtype=np.float64)
        return (hardness, quality), report.computed
