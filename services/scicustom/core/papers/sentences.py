"""Sentence boundaries with character offsets (pysbd, English rules)."""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import pysbd


@lru_cache(maxsize=1)
def _segmenter() -> Any:
    return pysbd.Segmenter(language="en", clean=False, char_span=True)


def split_sentences(text: str) -> list[tuple[int, int]]:
    """(start, end) of each sentence of `text`, trailing spaces excluded; spans cover no gaps but spaces."""
    spans: list[tuple[int, int]] = []
    cursor = 0
    for span in _segmenter().segment(text):
        sentence = span.sent.strip()
        if not sentence:
            continue
        start = text.find(sentence, cursor)
        if start < 0:  # pysbd changed the text: fall back to its own offsets
            start = span.start
        end = start + len(sentence)
        spans.append((start, end))
        cursor = end
    return spans
