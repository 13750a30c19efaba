"""Lexical relevance: tokenisation with Porter stemming and Okapi BM25 over a document set."""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache

import numpy as np
from nltk.stem.porter import PorterStemmer
from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

_WORD = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
# Words of benchmark instructions ("Generate questions that test conceptual understanding...")
# that say nothing about the science; left in, they match every question in the corpus.
INSTRUCTION_WORDS = frozenset({
    "generate", "question", "questions", "test", "tests", "testing", "assess", "assesses", "evaluate",
    "evaluates", "benchmark", "benchmarks", "construct", "knowledge", "understanding", "conceptual",
    "reasoning", "focus", "emphasize", "emphasise", "avoid", "rather", "coverage", "include", "including",
    "skills", "skill", "probe", "mechanistic", "core", "wide", "range", "specific", "isolate", "general",
})
_stemmer = PorterStemmer()


@lru_cache(maxsize=200_000)
def _stem(word: str) -> str:
    return str(_stemmer.stem(word))


def _kept(word: str) -> bool:
    return word not in ENGLISH_STOP_WORDS and word not in INSTRUCTION_WORDS and len(word) > 1


def tokenize(text: str) -> list[str]:
    return [_stem(w) for w in _WORD.findall(text.lower()) if _kept(w)]


def term_tokens(text: str, parts: bool = True) -> list[str]:
    """`tokenize`, and each hyphenated word also as one word ("non-competitive" is "noncompetitive")
    and, with `parts`, as its parts ("genotype-phenotype" names the genotype). For matching terms;
    BM25 keeps `tokenize`, whose scores the builds' votes depend on."""
    tokens = []
    for word in _WORD.findall(text.lower()):
        if _kept(word):
            tokens.append(_stem(word))
        if "-" in word:
            split = word.split("-")
            if parts:
                tokens.extend(_stem(p) for p in split if _kept(p))
            tokens.append(_stem("".join(split)))
    return tokens


def hyphenated_parts(text: str) -> list[list[str]]:
    """The stemmed parts of each hyphenated word of `text`."""
    return [[_stem(p) for p in word.split("-") if _kept(p)] for word in _WORD.findall(text.lower()) if "-" in word]


class BM25:
    """Okapi BM25 (k1=1.5, b=0.75) with the non-negative idf log(1 + (N - df + .5) / (df + .5))."""

    def __init__(self, documents: Sequence[str], k1: float = 1.5, b: float = 0.75) -> None:
        self.k1, self.b = k1, b
        self._docs = [Counter(tokenize(d)) for d in documents]
        self._lengths = np.array([sum(c.values()) for c in self._docs], dtype=np.float64)
        self.avgdl = float(self._lengths.mean()) if len(self._docs) else 1.0
        df: Counter[str] = Counter()
        for doc in self._docs:
            df.update(doc.keys())
        n = len(self._docs)
        self._idf = {t: float(np.log(1 + (n - f + 0.5) / (f + 0.5))) for t, f in df.items()}
        self._unseen_idf = float(np.log(1 + (n + 0.5) / 0.5))

    def _score(self, query: Counter[str], doc: Counter[str], length: float) -> float:
        score = 0.0
        norm = self.k1 * (1 - self.b + self.b * length / max(self.avgdl, 1e-9))
        for term in query:
            tf = doc.get(term, 0)
            if tf:
                score += self._idf.get(term, self._unseen_idf) * tf * (self.k1 + 1) / (tf + norm)
        return score

    def scores(self, query: str) -> np.ndarray:
        """Score of every indexed document for the query."""
        q = Counter(tokenize(query))
        return np.array([self._score(q, d, length) for d, length in zip(self._docs, self._lengths, strict=True)])

    def score_text(self, query: str, text: str) -> float:
        """Score of a document outside the index, with the index's idf and average length."""
        doc = Counter(tokenize(text))
        return self._score(Counter(tokenize(query)), doc, float(sum(doc.values())))
