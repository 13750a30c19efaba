"""Compute the intrinsic scores (quality, hardness) once per item and cache them with the corpus."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass

from tqdm import tqdm

from scicustom.core.corpus_item import CorpusItem
from scicustom.core.intrinsic import quality_score
from scicustom.ports import AnswerPerplexity, CorpusRepository

CHUNK = 256  # items scored between two saves, so an interrupted run keeps its progress


@dataclass
class ScoringReport:
    computed: int
    cached: int
    items_per_s: float


def ensure_intrinsic_scores(repo: CorpusRepository, model: AnswerPerplexity, items: Sequence[CorpusItem],
                            show_progress: bool = True) -> ScoringReport:
    known = repo.load_intrinsic()
    missing = [it for it in items if it.id not in known]
    started = time.perf_counter()
    bar = tqdm(total=len(missing), desc="intrinsic scores", unit=" item", disable=not show_progress)
    for start in range(0, len(missing), CHUNK):
        chunk = missing[start : start + CHUNK]
        hardness = model.perplexities([(it.question, it.answer) for it in chunk])
        repo.add_intrinsic({it.id: (round(quality_score(it.question, it.answer), 6), round(float(h), 6))
                            for it, h in zip(chunk, hardness, strict=True)})
        bar.update(len(chunk))
    bar.close()
    rate = len(missing) / max(time.perf_counter() - started, 1e-9) if missing else 0.0
    return ScoringReport(len(missing), len(items) - len(missing), rate)


def score_corpus(repo: CorpusRepository, model: AnswerPerplexity, limit: int | None = None,
                 show_progress: bool = True) -> ScoringReport:
    """`corpus scores`: the missing scores of the corpus (its first `limit` items when given)."""
    items = repo.load_items()
    if limit is not None:
        items = items[:limit]
    return ensure_intrinsic_scores(repo, model, items, show_progress=show_progress)
