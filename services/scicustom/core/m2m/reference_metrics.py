"""Reference-based metrics against the literature hypothesis (the paper's section 4.3): BLEU, ROUGE-L and
embedding cosine, per row, per system, and the Kendall tau of each metric's system ranking against cbs.

- BLEU: sentence BLEU-4 with uniform weights and Chen & Cherry smoothing method 1 (epsilon 0.1), as
  nltk's `sentence_bleu(..., smoothing_function=method1)` that the reference calls. The reference
  tokenises with nltk's `word_tokenize`, which needs the punkt model (not available offline); tokens here
  are word runs and single punctuation marks of the lower-cased text.
- ROUGE-L: the F-measure of the longest common subsequence, tokenised as `rouge_score` does with
  `use_stemmer=True` (lower-case, non-alphanumerics as spaces, Porter stem of tokens longer than 3).
- Cosine: dot product of the L2-normalised sentence embeddings from the Embedder port (packaged MiniLM).
Rankings order systems by mean, ties by name; tau compares rank positions, as the reference does.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from scicustom.core.m2m.sensitivity import rank_by
from scicustom.core.text_overlap import lcs_length
from scicustom.ports import Embedder

_BLEU_TOKEN = re.compile(r"\w+|[^\w\s]")
_NON_ALPHANUMERIC = re.compile(r"[^a-z0-9]+")
_BLEU_ORDER = 4
_BLEU_EPSILON = 0.1


def bleu_tokens(text: str) -> list[str]:
    return _BLEU_TOKEN.findall(text.lower())


def sentence_bleu(reference: Sequence[str], hypothesis: Sequence[str]) -> float:
    numerators: list[int] = []
    denominators: list[int] = []
    for n in range(1, _BLEU_ORDER + 1):
        counts = Counter(tuple(hypothesis[i:i + n]) for i in range(len(hypothesis) - n + 1))
        reference_counts = Counter(tuple(reference[i:i + n]) for i in range(len(reference) - n + 1))
        numerators.append(sum(min(c, reference_counts[g]) for g, c in counts.items()))
        denominators.append(max(1, sum(counts.values())))
    if numerators[0] == 0:
        return 0.0
    c, r = len(hypothesis), len(reference)
    penalty = 1.0 if c > r else math.exp(1 - r / c)
    precisions = [(num + _BLEU_EPSILON) / den if num == 0 else num / den
                  for num, den in zip(numerators, denominators, strict=True)]
    return penalty * math.exp(math.fsum(0.25 * math.log(p) for p in precisions if p > 0))


def bleu_score(reference: str, hypothesis: str) -> float:
    reference_tokens, hypothesis_tokens = bleu_tokens(reference), bleu_tokens(hypothesis)
    if not reference_tokens or not hypothesis_tokens:
        return 0.0
    return sentence_bleu(reference_tokens, hypothesis_tokens)


def rouge_tokens(text: str) -> list[str]:
    from nltk.stem.porter import PorterStemmer  # imported here: only ROUGE-L needs it

    stemmer = PorterStemmer()
    tokens = _NON_ALPHANUMERIC.sub(" ", text.lower()).split()
    return [stemmer.stem(t) if len(t) > 3 else t for t in tokens]


def rouge_l(reference: str, hypothesis: str) -> float:
    target, prediction = rouge_tokens(reference), rouge_tokens(hypothesis)
    if not target or not prediction:
        return 0.0
    lcs = lcs_length(target, prediction)
    if lcs == 0:
        return 0.0
    precision, recall = lcs / len(prediction), lcs / len(target)
    return 2 * precision * recall / (precision + recall)


def cosine_similarities(embedder: Embedder, hypotheses: Sequence[str], references: Sequence[str]) -> np.ndarray:
    if not hypotheses:
        return np.zeros(0)
    a = np.asarray(embedder.encode(list(hypotheses)), dtype=np.float64)
    b = np.asarray(embedder.encode(list(references)), dtype=np.float64)
    return np.asarray((a * b).sum(axis=1))


def reference_metrics_report(ids: Sequence[str], hypotheses: Sequence[str], references: Sequence[str],
                             cbs: Sequence[float], embedder: Embedder | None,
                             systems: Sequence[str] | None = None) -> dict[str, Any]:
    """Per-row BLEU / ROUGE-L / cosine; with systems, their means, rankings and tau against cbs."""
    bleu = [bleu_score(r, h) for h, r in zip(hypotheses, references, strict=True)]
    rouge = [rouge_l(r, h) for h, r in zip(hypotheses, references, strict=True)]
    metrics: dict[str, list[float]] = {"cbs": list(cbs), "bleu": bleu, "rouge_l": rouge}
    if embedder is not None:
        metrics["cosine"] = cosine_similarities(embedder, hypotheses, references).tolist()
    rows = {pid: {name: round(values[i], 4) for name, values in metrics.items() if name != "cbs"}
            for i, pid in enumerate(ids)}
    report: dict[str, Any] = {"matched_rows": len(ids), "rows": rows,
                              "means": {n: _mean(v) for n, v in metrics.items()}}
    if systems is not None:
        members: dict[str, list[int]] = {}
        for i, system in enumerate(systems):
            members.setdefault(system, []).append(i)
        table = {s: {n: round(math.fsum(v[i] for i in idx) / len(idx), 4) for n, v in metrics.items()}
                 for s, idx in sorted(members.items())}
        rankings = {n: rank_by(table, n) for n in metrics}
        taus: dict[str, dict[str, float | None]] = {}
        base = rankings["cbs"]
        for name, ranked in rankings.items():
            if name != "cbs" and len(base) >= 3:
                from scipy.stats import kendalltau  # imported here: scipy.stats is slow to import

                result = kendalltau([base.index(s) for s in base], [ranked.index(s) for s in base])
                tau, p = float(result.statistic), float(result.pvalue)
                taus[name] = {"tau": None if math.isnan(tau) else round(tau, 4),
                              "p": None if math.isnan(p) else round(p, 4)}
        report.update({"system_means": table, "rankings": rankings, "kendall_tau_vs_cbs": taus})
    return report


def _mean(values: Sequence[float]) -> float | None:
    return round(math.fsum(values) / len(values), 4) if values else None
