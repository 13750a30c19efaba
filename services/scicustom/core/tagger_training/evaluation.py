"""Evaluation of a tagger against the zero-shot baseline (SciCustom section 3.3 + real items)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict
from typing import Any

import numpy as np

from scicustom.core.corpus_item import CorpusItem
from scicustom.core.tagger_training.dataset import LabelledText
from scicustom.core.tagger_training.metrics import F1Report, domain_agreement, fuzzy_f1
from scicustom.core.tagger_training.subject_priors import domain_agreement_prior
from scicustom.core.units import UnitCatalog
from scicustom.ports import UnitScore

TagFn = Callable[[Sequence[str]], list[list[UnitScore]]]


def _names(catalog: UnitCatalog, tags: list[list[UnitScore]]) -> list[list[str]]:
    return [[catalog.by_id(s.unit_id).name for s in row] for row in tags]


def _f1_dict(report: F1Report) -> dict[str, float | int]:
    return {k: (round(v, 4) if isinstance(v, float) else v) for k, v in asdict(report).items()}


def paper_protocol(catalog: UnitCatalog, test: Sequence[LabelledText], tags: list[list[UnitScore]]) -> dict[str, Any]:
    gold = [[catalog.by_id(u).name for u in ex.unit_ids] for ex in test]
    return _f1_dict(fuzzy_f1(_names(catalog, tags), gold))


def real_agreement(catalog: UnitCatalog, items: Sequence[CorpusItem], tags: list[list[UnitScore]]) -> dict[str, Any]:
    """Top-unit domain vs subject on held-out MMLU/MedMCQA items: all, science and non-science subjects."""
    rows = [(domain_agreement_prior(it.source, it.subject), t) for it, t in zip(items, tags, strict=True)]
    known = [(p, t) for p, t in rows if p is not None and t]
    top = [catalog.by_id(t[0].unit_id).domain for _, t in known]
    priors = [p for p, _ in known]
    sci = [i for i, p in enumerate(priors) if not p.non_scientific]
    non = [i for i, p in enumerate(priors) if p.non_scientific]
    return {
        "items": len(known),
        "all": round(domain_agreement(top, priors), 4),
        "science_subjects": round(domain_agreement([top[i] for i in sci], [priors[i] for i in sci]), 4),
        "non_science_subjects": round(domain_agreement([top[i] for i in non], [priors[i] for i in non]), 4),
        "mean_units": round(float(np.mean([len(t) for _, t in known])) if known else 0.0, 3),
    }


def weak_label_f1(catalog: UnitCatalog, labelled: Sequence[LabelledText],
                  tags: list[list[UnitScore]]) -> dict[str, Any]:
    gold = [[catalog.by_id(u).name for u in ex.unit_ids] for ex in labelled]
    return _f1_dict(fuzzy_f1(_names(catalog, tags), gold))
