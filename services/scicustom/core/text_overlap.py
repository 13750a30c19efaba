"""Lexical overlap of a candidate text with a reference: sentence BLEU and ROUGE-L, in the variants
the scorers report. Every function takes the candidate first and the reference second.

BLEU variants:
- "sacrebleu" (AlchemyBench baselines): sacrebleu's `sentence_bleu` method (BLEU-4, uniform weights,
  brevity penalty, exponential smoothing of zero n-gram counts, effective order for candidates
  shorter than 4 tokens) on word runs and single punctuation marks, case kept. Unlike sacrebleu, a
  candidate without a common unigram still gets the smoothed score rather than 0. sacrebleu 2.6.0
  itself (tokenize="none" on these tokens) is not used: it gives 0 there (72 of 1,000 random pairs,
  up to 0.5 apart) and otherwise differs in the last bits (up to 8 ulp; it works on a 0-100 scale),
  so the scores would change.
- "nltk-m2m" (the M2M reference metrics, paper section 4.3): nltk's `sentence_bleu(...,
  smoothing_function=method1)` (BLEU-4, uniform weights, Chen & Cherry method 1 with epsilon 0.1,
  no effective order) on the same tokens of the lower-cased text; the reference tokenises with
  `word_tokenize`, which needs the punkt model (not available offline).
Scores are in [0, 1]; an empty candidate or reference scores 0.

ROUGE-L follows rouge-score's `rougeL`: lower-cased alphanumeric tokens, precision and recall of
the longest common subsequence, F1; `stemmed=True` is its `use_stemmer=True` (Porter stem of
tokens longer than 3 characters), as the M2M reference calls it. The LCS is computed bit-parallel
(Hyyrö 2004), O(n·m/w) instead of the O(n·m) table.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

BleuVariant = Literal["sacrebleu", "nltk-m2m"]

_BLEU_TOKEN = re.compile(r"\w+|[^\w\s]")
_ROUGE_TOKEN = re.compile(r"[a-z0-9]+")
_MAX_ORDER = 4
_NLTK_EPSILON = 0.1


def bleu_tokens(text: str, variant: BleuVariant = "sacrebleu") -> list[str]:
    return _BLEU_TOKEN.findall(text.lower() if variant == "nltk-m2m" else text)


def bleu(candidate: str, reference: str, variant: BleuVariant = "sacrebleu") -> float:
    hyp, ref = bleu_tokens(candidate, variant), bleu_tokens(reference, variant)
    if not hyp or not ref:
        return 0.0
    return _sacrebleu_style(hyp, ref) if variant == "sacrebleu" else _nltk_method1(hyp, ref)


def _ngrams(tokens: Sequence[str], n: int) -> Counter[tuple[str, ...]]:
    return Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))


def _sacrebleu_style(hyp: Sequence[str], ref: Sequence[str]) -> float:
    log_precision_sum = 0.0
    smooth = 1.0
    orders = 0
    for n in range(1, _MAX_ORDER + 1):
        total = len(hyp) - n + 1
        if total <= 0:
            break  # effective order: a short candidate is scored on the orders it has
        matches = sum((_ngrams(hyp, n) & _ngrams(ref, n)).values())
        if matches == 0:
            smooth *= 2.0
            precision = 1.0 / (smooth * total)
        else:
            precision = matches / total
        log_precision_sum += math.log(precision)
        orders += 1
    brevity = 1.0 if len(hyp) > len(ref) else math.exp(1.0 - len(ref) / len(hyp))
    return brevity * math.exp(log_precision_sum / orders)


def _nltk_method1(hyp: Sequence[str], ref: Sequence[str]) -> float:
    numerators: list[int] = []
    denominators: list[int] = []
    for n in range(1, _MAX_ORDER + 1):
        counts = _ngrams(hyp, n)
        reference_counts = _ngrams(ref, n)
        numerators.append(sum(min(c, reference_counts[g]) for g, c in counts.items()))
        denominators.append(max(1, sum(counts.values())))
    if numerators[0] == 0:
        return 0.0
    c, r = len(hyp), len(ref)
    penalty = 1.0 if c > r else math.exp(1 - r / c)
    precisions = [(num + _NLTK_EPSILON) / den if num == 0 else num / den
                  for num, den in zip(numerators, denominators, strict=True)]
    return penalty * math.exp(math.fsum(0.25 * math.log(p) for p in precisions if p > 0))


def rouge_tokens(text: str, *, stemmed: bool = False) -> list[str]:
    tokens: list[str] = _ROUGE_TOKEN.findall(text.lower())
    if not stemmed:
        return tokens
    from nltk.stem.porter import PorterStemmer  # imported here: only the stemmed variant needs it

    stemmer = PorterStemmer()
    return [stemmer.stem(t) if len(t) > 3 else t for t in tokens]


def lcs_length(a: Sequence[str], b: Sequence[str]) -> int:
    """Length of the longest common subsequence, bit-parallel over `a`."""
    if not a or not b:
        return 0
    masks: dict[str, int] = {}
    for i, token in enumerate(a):
        masks[token] = masks.get(token, 0) | (1 << i)
    full = (1 << len(a)) - 1
    v = full
    for token in b:
        u = v & masks.get(token, 0)
        v = ((v + u) | (v - u)) & full
    return len(a) - v.bit_count()


@dataclass(frozen=True)
class RougeScore:
    precision: float
    recall: float
    fmeasure: float


def rouge_l(candidate: str, reference: str, *, stemmed: bool = False) -> RougeScore:
    pred, ref = rouge_tokens(candidate, stemmed=stemmed), rouge_tokens(reference, stemmed=stemmed)
    if not pred or not ref:
        return RougeScore(0.0, 0.0, 0.0)
    lcs = lcs_length(ref, pred)
    precision, recall = lcs / len(pred), lcs / len(ref)
    f = 0.0 if lcs == 0 else 2 * precision * recall / (precision + recall)
    return RougeScore(precision, recall, f)
