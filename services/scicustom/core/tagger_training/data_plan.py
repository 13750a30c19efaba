"""The tagger's data sets, rebuilt deterministically from a plan (training and `tagger eval` agree).

  train            synthetic queries (training keywords, training templates) + weakly labelled
                   real items of the training split
  validation       synthetic queries (other seed) + weakly labelled real validation items: thresholds
  paper_test       the paper's protocol: 1,000 compositional queries, 1-5 units uniformly, from
                   held-out keywords and held-out templates (or the LLM prompt), never trained on
  heldout_items    real items of the held-out split (our own check of real questions)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np

from scicustom.core.corpus_item import CorpusItem
from scicustom.core.tagger_training.composer import OfflineComposer
from scicustom.core.tagger_training.dataset import (
    LabelledText,
    QueryWriter,
    real_split,
    synthetic_examples,
    weakly_labelled,
)
from scicustom.core.tagger_training.sampling import (
    PAPER_UNIT_COUNTS,
    TRAINING_UNIT_COUNTS,
    CompositionalSampler,
    split_keywords,
    unit_keywords_from_catalog,
)
from scicustom.core.tagger_training.weak_labels import WeakLabeller
from scicustom.core.units import UnitCatalog


@dataclass(frozen=True)
class DataPlan:
    synthetic: int = 160000
    synthetic_validation: int = 3000
    paper_test: int = 1000
    keyword_heldout: float = 0.2
    seed: int = 0
    # Hand-labelled real questions (resources/tagger_gold): each `train` item is repeated this
    # often among the training examples; `dev` items join the threshold calibration this often.
    gold_repeats: int = 10
    gold_calibration_repeats: int = 3
    # "teacher": real items of the training split labelled by their nearest hand-labelled items
    # (gold_teacher.py); "weak": by MiniLM similarity to the unit names within their subject's domains.
    real_labels: str = "teacher"

    def as_dict(self) -> dict[str, float | int]:
        return asdict(self)


@dataclass
class DataSets:
    train: list[LabelledText]
    validation: list[LabelledText]
    paper_test: list[LabelledText]
    heldout_items: list[CorpusItem]
    heldout_rows: np.ndarray  # rows of the held-out items in the corpus order


def paper_test_set(catalog: UnitCatalog, plan: DataPlan, writer: QueryWriter | None = None) -> list[LabelledText]:
    _, held_units = split_keywords(unit_keywords_from_catalog(catalog), plan.keyword_heldout)
    sampler = CompositionalSampler(held_units, unit_count_p=PAPER_UNIT_COUNTS)
    return synthetic_examples(sampler, writer or OfflineComposer(side="heldout"), plan.paper_test, plan.seed + 1000)


def build_datasets(catalog: UnitCatalog, items: Sequence[CorpusItem], name_similarity: np.ndarray | None,
                   plan: DataPlan, labeller: WeakLabeller, writer: QueryWriter | None = None,
                   test_writer: QueryWriter | None = None) -> DataSets:
    """`name_similarity`: items x scientific units, MiniLM cosine to the unit names (weak labels);
    None leaves real items out (the caller labels them otherwise)."""
    train_units, _ = split_keywords(unit_keywords_from_catalog(catalog), plan.keyword_heldout)
    sampler = CompositionalSampler(train_units, unit_count_p=TRAINING_UNIT_COUNTS)
    composer = writer or OfflineComposer(side="train")
    train = synthetic_examples(sampler, composer, plan.synthetic, plan.seed)
    validation = synthetic_examples(sampler, composer, plan.synthetic_validation, plan.seed + 500)
    splits = np.array([real_split(it.id) for it in items])
    for split, target in (("train", train), ("validation", validation)):
        if name_similarity is None:
            break
        rows = np.flatnonzero(splits == split)
        target.extend(weakly_labelled([items[int(i)] for i in rows], name_similarity[rows], labeller))
    held = np.flatnonzero(splits == "heldout")
    return DataSets(train, validation, paper_test_set(catalog, plan, test_writer),
                    [items[int(i)] for i in held], held)
