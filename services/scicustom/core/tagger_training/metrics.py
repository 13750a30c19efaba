"""Tagger evaluation as in SciCustom section 3.3, and domain agreement on real items.

Fuzzy label matching: a predicted tag is correct when its normalised Indel similarity
(rapidfuzz `fuzz.ratio`) with some gold tag is at least 85; a gold tag is found when some
predicted tag matches it that way. Micro F1 pools precision and recall over all queries; macro F1
averages the per-label F1 over every label that occurs as gold or prediction (a label never
predicted has F1 0).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from rapidfuzz import fuzz

from scicustom.core.tagger_training.subject_priors import SubjectPrior

FUZZY_MATCH_RATIO = 85.0


def fuzzy_match(predicted: str, gold: str, threshold: float = FUZZY_MATCH_RATIO) -> bool:
    return fuzz.ratio(predicted, gold) >= threshold


@dataclass(frozen=True)
class F1Report:
    queries: int
    gold_tags: int
    predicted_tags: int
    micro_precision: float
    micro_recall: float
    micro_f1: float
    macro_f1: float


def _f1(p: float, r: float) -> float:
    return 0.0 if p + r == 0 else 2 * p * r / (p + r)


def fuzzy_f1(predicted: Sequence[Sequence[str]], gold: Sequence[Sequence[str]],
             threshold: float = FUZZY_MATCH_RATIO) -> F1Report:
    if len(predicted) != len(gold):
        raise ValueError("one prediction list per gold list")
    correct_pred = total_pred = found_gold = total_gold = 0
    # per label: [predicted, predicted correct, gold, gold found]
    per_label: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0, 0])
    for pred_tags, gold_tags in zip(predicted, gold, strict=True):
        pred_set, gold_set = list(dict.fromkeys(pred_tags)), list(dict.fromkeys(gold_tags))
        for p in pred_set:
            ok = any(fuzzy_match(p, g, threshold) for g in gold_set)
            per_label[p][0] += 1
            per_label[p][1] += ok
            correct_pred += ok
        for g in gold_set:
            ok = any(fuzzy_match(p, g, threshold) for p in pred_set)
            per_label[g][2] += 1
            per_label[g][3] += ok
            found_gold += ok
        total_pred += len(pred_set)
        total_gold += len(gold_set)
    precision = correct_pred / total_pred if total_pred else 0.0
    recall = found_gold / total_gold if total_gold else 0.0
    label_f1 = [_f1(c[1] / c[0] if c[0] else 0.0, c[3] / c[2] if c[2] else 0.0) for c in per_label.values()]
    return F1Report(len(gold), total_gold, total_pred, precision, recall, _f1(precision, recall),
                    sum(label_f1) / len(label_f1) if label_f1 else 0.0)


def domain_agreement(top_domains: Sequence[str], priors: Sequence[SubjectPrior]) -> float:
    """Share of items whose top unit's domain is one of the domains of the item's subject."""
    if len(top_domains) != len(priors):
        raise ValueError("one top domain per prior")
    if not priors:
        return 0.0
    return sum(d in p.domains for d, p in zip(top_domains, priors, strict=True)) / len(priors)
