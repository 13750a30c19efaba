"""Lexical overlap baselines: sentence BLEU and ROUGE-L.

BLEU follows sacrebleu's `sentence_bleu` defaults (BLEU-4, uniform weights, brevity penalty,
exponential smoothing of zero n-gram counts, effective order for hypotheses shorter than 4 tokens)
on a tokenisation that splits words from punctuation, case kept; scores are in [0, 1].
ROUGE-L follows rouge-score's `rougeL` without stemming: lower-cased alphanumeric tokens, precision
and recall of the longest common subsequence, F1. The LCS is computed bit-parallel (Hyyrö 2004),
O(n·m/w) instead of the O(n·m) table.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

_BLEU_TOKEN = re.compile(r"\w+|[^\w\s]")
_ROUGE_TOKEN = re.compile(r"[a-z0-9]+")


def bleu_tokens(text: str) -> list[str]:
    return _BLEU_TOKEN.findall(text)


def rouge_tokens(text: str) -> list[str]:
    return _ROUGE_TOKEN.findall(text.lower())


def _ngrams(tokens: Sequence[str], n: int) -> Counter[tuple[str, ...]]:
    return Counter(tuple(tokens[i:i + n]) for i in range(len(tokens) - n + 1))


def sentence_bleu(hypothesis: str, reference: str, max_order: int = 4) -> float:
    hyp, ref = bleu_tokens(hypothesis), bleu_tokens(reference)
    if not hyp or not ref:
        return 0.0
    log_precision_sum = 0.0
    smooth = 1.0
    orders = 0
    for n in range(1, max_order + 1):
        total = len(hyp) - n + 1
        if total <= 0:
            break  # effective order: a short hypothesis is scored on the orders it has
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


def rouge_l(prediction: str, reference: str) -> RougeScore:
    pred, ref = rouge_tokens(prediction), rouge_tokens(reference)
    if not pred or not ref:
        return RougeScore(0.0, 0.0, 0.0)
    lcs = lcs_length(ref, pred)
    precision, recall = lcs / len(pred), lcs / len(ref)
    f = 0.0 if lcs == 0 else 2 * precision * recall / (precision + recall)
    return RougeScore(precision, recall, f)
