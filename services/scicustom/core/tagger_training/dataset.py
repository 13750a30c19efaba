"""Assembling labelled texts: synthetic compositional queries and weakly labelled real items.

Splits are stable hashes of the item id (real) or fixed seeds (synthetic): real items with
fraction < REAL_HELDOUT never reach training or calibration (our own held-out check of real
questions); those in [REAL_HELDOUT, REAL_HELDOUT + REAL_VALIDATION) calibrate the thresholds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

import numpy as np

from scicustom.core.corpus_item import CorpusItem
from scicustom.core.tagger_training.sampling import CompositionalSampler, QuerySpec, stable_fraction
from scicustom.core.tagger_training.subject_priors import subject_prior
from scicustom.core.tagger_training.weak_labels import WeakLabeller

REAL_HELDOUT = 0.2
REAL_VALIDATION = 0.1
Split = Literal["train", "validation", "heldout"]


class QueryWriter(Protocol):
    name: str

    def compose(self, spec: QuerySpec, rng: np.random.Generator) -> str: ...


@dataclass(frozen=True)
class LabelledText:
    text: str
    unit_ids: tuple[str, ...]
    origin: str  # "synthetic:<writer>" or "real:<source>"
    item_id: str = ""
    subject: str = ""


def real_split(item_id: str) -> Split:
    f = stable_fraction(item_id, "tagger-real-split")
    if f < REAL_HELDOUT:
        return "heldout"
    return "validation" if f < REAL_HELDOUT + REAL_VALIDATION else "train"


def synthetic_examples(sampler: CompositionalSampler, writer: QueryWriter, count: int,
                       seed: int) -> list[LabelledText]:
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        spec = sampler.sample(rng)
        out.append(LabelledText(writer.compose(spec, rng), spec.unit_ids, f"synthetic:{writer.name}"))
    return out


def weakly_labelled(items: Sequence[CorpusItem], similarity: np.ndarray,
                    labeller: WeakLabeller) -> list[LabelledText]:
    """Rows of `similarity` align with `items`; items without a prior or a confident label are dropped."""
    out = []
    for item, row in zip(items, similarity, strict=True):
        prior = subject_prior(item.source, item.subject)
        if prior is None:
            continue
        units = labeller.label(row, prior)
        if units:
            out.append(LabelledText(item.text, tuple(units), f"real:{item.source}", item.id, item.subject))
    return out
