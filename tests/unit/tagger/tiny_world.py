"""A tiny tagger world for tests: six units with keywords, a small corpus, a hashing embedder and
random 16-d token vectors, so the whole training pipeline runs in seconds without MiniLM."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from scicustom.adapters.packaged_models import minilm_path
from scicustom.adapters.tagger_artifact_store import TaggerArtifactStore
from scicustom.adapters.torch_tagger_trainer import TorchTaggerTrainer
from scicustom.app.tagging.tagger_training import TrainingInputs, TrainingResult, train
from scicustom.core.corpus_item import CorpusItem, make_item
from scicustom.core.tagger_training.data_plan import DataPlan
from scicustom.core.tagger_training.gold_set import GoldItem
from scicustom.core.tagger_training.train_config import TrainConfig
from scicustom.core.units import UnitCatalog
from tests.support.hashing_embedder import HashingEmbedder

UNITS = {
    "version": "tiny",
    "knowledge_units": [
        {"id": "ku_1", "name": "Chemical kinetics", "domain": "chemistry",
         "keywords": ["reaction rate", "rate constant", "activation energy", "half-life", "catalyst"]},
        {"id": "ku_2", "name": "Virology", "domain": "medicine",
         "keywords": ["virus", "capsid", "viral replication", "influenza", "retrovirus"]},
        {"id": "ku_3", "name": "Heart", "domain": "anatomy",
         "keywords": ["cardiac ventricle", "atrium", "mitral valve", "myocardium"]},
        {"id": "ku_4", "name": "Optics", "domain": "physics",
         "keywords": ["lens", "refraction", "diffraction", "focal length", "polarization"]},
        {"id": "ku_5", "name": "Mathematics", "domain": "other", "keywords": ["integral", "matrix"]},
        {"id": "ku_6", "name": "Non-Scientific", "domain": "non-scientific", "keywords": []},
    ],
}

_REAL = [
    ("mmlu", "college_chemistry", "What is the rate constant of a first-order reaction with a half-life of 10 s?",
     "0.069 per second"),
    ("mmlu", "college_chemistry", "How does a catalyst change the activation energy of a reaction?", "It lowers it"),
    ("mmlu", "virology", "Which virus family includes influenza?", "Orthomyxoviridae"),
    ("mmlu", "virology", "What protein shell surrounds the genome of a virus?", "The capsid"),
    ("mmlu", "anatomy", "Which valve separates the left atrium from the left ventricle of the heart?", "Mitral"),
    ("mmlu", "college_physics", "What is the focal length of a lens with power 2 dioptres?", "0.5 m"),
    ("mmlu", "college_physics", "Which phenomenon explains the bending of light at an interface?", "Refraction"),
    ("mmlu", "professional_law", "Which clause protects free speech in the constitution?", "The First Amendment"),
    ("mmlu", "philosophy", "Who wrote the Critique of Pure Reason?", "Kant"),
    ("mmlu", "marketing", "What does the marketing mix include?", "Product, price, place, promotion"),
    ("mmlu", "high_school_us_history", "Who was the first president of the United States?", "George Washington"),
    ("medmcqa", "Anatomy", "The myocardium of the heart is supplied by which artery?", "Coronary artery"),
    ("medmcqa", "Microbiology", "Reverse transcriptase is characteristic of which virus?", "Retrovirus"),
    ("arc", "arc_easy", "A lens that bends light rays together is called what?", "A converging lens"),
]


def corpus_items(copies: int = 6) -> list[CorpusItem]:
    """Each real question several times with a varying suffix, so every split gets some."""
    items = []
    for n in range(copies):
        for source, subject, question, answer in _REAL:
            items.append(make_item(source, "MIT", subject, f"{question} (variant {n})", [], None, answer))
    return items


def tiny_inputs(dimensions: int = 64) -> TrainingInputs:
    embedder = HashingEmbedder(dimensions)
    items = corpus_items()
    vectors = embedder.encode([it.text for it in items])
    return TrainingInputs(catalog=UnitCatalog.from_mapping(UNITS), items=items, item_vectors=vectors,
                          embedder=embedder, units_source="tiny")


SUBJECT_UNITS = {"virology": "Virology", "anatomy": "Heart", "college_chemistry": "Chemical kinetics",
                 "college_physics": "Optics"}


def with_gold(inputs: TrainingInputs, count: int = 40) -> TrainingInputs:
    """`inputs` with the first `count` science items labelled by hand, split train/train/dev/heldout."""
    splits = ["train", "train", "dev", "heldout"]
    inputs.gold = [GoldItem(item, splits[i % 4], (SUBJECT_UNITS[item.subject],))
                   for i, item in enumerate(inputs.items[:count]) if item.subject in SUBJECT_UNITS]
    return inputs


def tiny_trainer(seed: int = 0) -> TorchTaggerTrainer:
    """The real trainer on the packaged tokenizer, with random 16-d token vectors instead of MiniLM's."""
    vectors = np.random.default_rng(seed).normal(size=(30522, 16)).astype(np.float32)
    return TorchTaggerTrainer(lambda: minilm_path() / "tokenizer.json", lambda: vectors)


TINY_PLAN = DataPlan(synthetic=600, synthetic_validation=150, paper_test=60, keyword_heldout=0.0, seed=0)
TINY_CONFIG = TrainConfig(epochs=4, batch_size=64, hidden=32, learning_rate=1e-2, embedding_learning_rate=1e-2)


def train_tiny(root: Path, head_dimensions: int | None = None) -> TrainingResult:
    """Trains into `root` (a home's models/tagger folder) and makes the version current. With
    `head_dimensions`, hand-labelled items and vectors of that size: the version has a vector head."""
    inputs = with_gold(tiny_inputs(head_dimensions)) if head_dimensions else tiny_inputs()
    return train(inputs, tiny_trainer(), TaggerArtifactStore(root), TINY_PLAN, TINY_CONFIG)
