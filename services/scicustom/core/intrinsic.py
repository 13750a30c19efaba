"""Intrinsic item scores of SciCustom Appendix A: quality (Flesch reading ease) and hardness
(perplexity of the answer given the question, eq. 1)."""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Sequence
from functools import lru_cache

import pyphen
import textstat

# textstat 0.7.13 counts English syllables with CMUdict, which it downloads through nltk at run
# time (forbidden here). Its own fallback for words CMUdict lacks is pyphen's hyphenation + 1; we
# apply that rule to every word and keep textstat's word and sentence counts and the FRE constants.
_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)*")
_HYPHENATOR = pyphen.Pyphen(lang="en_US")


@lru_cache(maxsize=100_000)
def _syllables(word: str) -> int:
    return len(_HYPHENATOR.positions(word)) + 1


def flesch_reading_ease(text: str) -> float:
    words = textstat.lexicon_count(text)
    sentences = textstat.sentence_count(text)
    if not words or not sentences:
        return 0.0
    syllables = sum(_syllables(w) for w in _WORD.findall(text.lower()))
    return float(206.835 - 1.015 * (words / sentences) - 84.6 * (syllables / words))


def quality_score(question: str, answer: str) -> float:
    """Flesch reading ease of the <q, a> pair (higher is easier to read)."""
    return float(flesch_reading_ease(f"{question} {answer}"))


def perplexity(answer_token_logprobs: Sequence[float]) -> float:
    """H(d) = exp(-1/|a| * sum_i log P(t_i | q, t_<i)) over the answer's tokens."""
    if not answer_token_logprobs:
        raise ValueError("the answer has no tokens")
    return math.exp(-sum(answer_token_logprobs) / len(answer_token_logprobs))


def scored_text_digest(question: str, answer: str) -> str:
    """What a cached hardness was computed from: a changed question or answer must miss the cache."""
    return hashlib.sha256(f"{question}\x1f{answer}".encode()).hexdigest()[:32]
