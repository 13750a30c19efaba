"""The intrinsic scores (quality, hardness) of the items a build or command needs.

Quality (Flesch reading ease) is cheap and pure, so it is computed on every call. Hardness (answer
perplexity, seconds per item on CPU) is computed only for items the hardness cache lacks under
this model version and text digest, and added to the cache, so later builds reuse it. Ingestion
does not score hardness: builds ask for it for the few hundred items that can enter a subset.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field

from tqdm import tqdm

from scicustom.core.corpus_item import CorpusItem
from scicustom.core.intrinsic import quality_score, scored_text_digest
from scicustom.ports import AnswerPerplexity, CorpusRepository

CHUNK = 256  # items scored between two cache writes, so an interrupted run keeps its progress


@dataclass
class ScoringReport:
    computed: int
    cached: int
    items_per_s: float
    scores: dict[str, tuple[float, float]] = field(default_factory=dict)  # id -> (quality, hardness)


def ensure_intrinsic_scores(repo: CorpusRepository, model: AnswerPerplexity, items: Sequence[CorpusItem],
                            show_progress: bool = True) -> ScoringReport:
    """(quality, hardness) of every item, rounded to 6 decimals; missing hardness computed and cached."""
    unique = list({it.id: it for it in items}.values())
    digest = {it.id: scored_text_digest(it.question, it.answer) for it in unique}
    cache = repo.load_hardness(model.name)
    missing = [it for it in unique if (it.id, digest[it.id]) not in cache]
    started = time.perf_counter()
    bar = tqdm(total=len(missing), desc="hardness (perplexity)", unit=" item", disable=not show_progress)
    for start in range(0, len(missing), CHUNK):
        chunk = missing[start : start + CHUNK]
        hardness = model.perplexities([(it.question, it.answer) for it in chunk])
        scored = {(it.id, digest[it.id]): round(float(h), 6) for it, h in zip(chunk, hardness, strict=True)}
        repo.add_hardness(model.name, scored)
        cache.update(scored)
        bar.update(len(chunk))
    bar.close()
    rate = len(missing) / max(time.perf_counter() - started, 1e-9) if missing else 0.0
    scores = {it.id: (round(quality_score(it.question, it.answer), 6), cache[(it.id, digest[it.id])])
              for it in unique}
    return ScoringReport(len(missing), len(unique) - len(missing), rate, scores)


def score_corpus(repo: CorpusRepository, model: AnswerPerplexity, limit: int | None = None,
                 show_progress: bool = True) -> ScoringReport:
    """`corpus scores`: the missing scores of the corpus (its first `limit` items when given)."""
    items = repo.load_items()
    if limit is not None:
        items = items[:limit]
    return ensure_intrinsic_scores(repo, model, items, show_progress=show_progress)
