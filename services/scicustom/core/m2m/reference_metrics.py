"""Reference-based metrics against the literature hypothesis (the paper's section 4.3): BLEU, ROUGE-L and
embedding cosine, per row, per system, and the Kendall tau of each metric's system ranking against cbs.

- BLEU: `text_overlap.bleu(..., variant="nltk-m2m")`, nltk's method-1 smoothed sentence BLEU that the
  reference calls.
- ROUGE-L: `text_overlap.rouge_l(..., stemmed=True)`, as `rouge_score` with `use_stemmer=True`.
- Cosine: dot product of the L2-normalised sentence embeddings from the Embedder port (packaged MiniLM).
Rankings order systems by mean, ties by name; tau compares rank positions, as the reference does.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from scicustom.core.m2m.sensitivity import rank_by
from scicustom.core.text_overlap import bleu, rouge_l
from scicustom.ports import Embedder


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
    pairs = list(zip(hypotheses, references, strict=True))
    metrics: dict[str, list[float]] = {
        "cbs": list(cbs),
        "bleu": [bleu(h, r, variant="nltk-m2m") for h, r in pairs],
        "rouge_l": [rouge_l(h, r, stemmed=True).fmeasure for h, r in pairs],
    }
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
