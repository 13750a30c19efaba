"""`scicustom corpus stats`: how many items the corpus holds per source, licence and format."""

from __future__ import annotations

from collections import Counter

from scicustom.ports import CorpusRepository


def corpus_composition(repo: CorpusRepository) -> Counter[tuple[str, str, str]]:
    """(source, licence, format) -> items."""
    return Counter((it.source, it.licence, it.format) for it in repo.load_items())
