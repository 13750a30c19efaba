"""`scicustom tagger train` and `tagger eval`: data -> networks (+ the sentence-vector head) -> thresholds
-> ONNX artifact -> evaluation.

Dependencies come in explicitly (catalog, corpus items and their embeddings, an Embedder for the
weak labels and the zero-shot baseline, the TaggerTrainer that owns the networks, the
TaggerArtifacts store), so tests run the whole pipeline on a handful of units with a hashing
embedder in seconds.
"""

from __future__ import annotations

import hashlib
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np

from scicustom.core.corpus_item import CorpusItem
from scicustom.core.progress import Progress, no_progress
from scicustom.core.tagger_training.artifact import TaggerArtifact
from scicustom.core.tagger_training.data_plan import DataPlan, DataSets, build_datasets, paper_test_set
from scicustom.core.tagger_training.dataset import LabelledText, QueryWriter, real_split, weakly_labelled
from scicustom.core.tagger_training.decoding import MAX_UNITS
from scicustom.core.tagger_training.evaluation import paper_protocol, real_agreement, weak_label_f1
from scicustom.core.tagger_training.gold_set import GoldItem, gold_examples, gold_scores
from scicustom.core.tagger_training.gold_teacher import GoldNeighbourTeacher, teacher_examples, unit_prototypes
from scicustom.core.tagger_training.thresholds import calibrate_global, calibrate_per_unit
from scicustom.core.tagger_training.train_config import TrainConfig
from scicustom.core.tagger_training.vector_head import VectorHead, fit_vector_head
from scicustom.core.tagger_training.weak_labels import WeakLabeller
from scicustom.core.units import KnowledgeUnit, UnitCatalog
from scicustom.core.zero_shot_tagger import (
    NON_SCIENCE_SUBJECTS,
    SCIENCE_SUBJECTS,
    ZeroShotParams,
    ZeroShotTagger,
    calibrate_threshold,
)
from scicustom.ports import Embedder, Tagger, TaggerArtifacts, TaggerTrainer, UnitScore


@dataclass
class TrainingInputs:
    catalog: UnitCatalog
    items: list[CorpusItem]
    item_vectors: np.ndarray  # rows aligned with items, from `embedder`
    embedder: Embedder
    units_source: str = ""
    writer: QueryWriter | None = None  # None: the offline composer
    extra_records: dict[str, Any] = field(default_factory=dict)
    gold: list[GoldItem] = field(default_factory=list)  # hand-labelled real questions (all splits)

    def without_gold_checks(self) -> TrainingInputs:
        """These inputs minus the gold `dev`/`heldout` items: nothing they measure may train."""
        checks = {g.item.id for g in self.gold if g.split != "train"}
        keep = [i for i, it in enumerate(self.items) if it.id not in checks]
        return replace(self, items=[self.items[i] for i in keep], item_vectors=self.item_vectors[keep])


@dataclass
class TrainingResult:
    artifact: TaggerArtifact
    train_seconds: float
    examples: dict[str, int]
    evaluation: dict[str, Any]


def weak_labeller(catalog: UnitCatalog) -> WeakLabeller:
    sci = catalog.scientific()
    non_sci = catalog.non_scientific()
    if non_sci is None:
        raise ValueError("the unit catalog has no Non-Scientific unit")
    return WeakLabeller([u.id for u in sci], [u.domain for u in sci], {u.name: u.id for u in sci}, non_sci.id)


def name_similarity(catalog: UnitCatalog, embedder: Embedder, item_vectors: np.ndarray) -> np.ndarray:
    names = embedder.encode([u.name for u in catalog.scientific()])
    return np.asarray(item_vectors @ names.T, dtype=np.float32)


def _label_columns(examples: Sequence[LabelledText], column: dict[str, int]) -> list[list[int]]:
    return [[column[u] for u in ex.unit_ids] for ex in examples]


def _catalog_digest(catalog: UnitCatalog) -> str:
    text = "\n".join(f"{u.id}\t{u.name}\t{u.domain}\t{'|'.join(u.keywords)}" for u in catalog.units)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def zero_shot_baseline(inputs: TrainingInputs, with_keywords: bool) -> ZeroShotTagger:
    """The baseline as `corpus tag` builds it (unit names; with `with_keywords`, names plus K_v),
    calibrated on the non-held-out MMLU items only."""
    catalog = inputs.catalog if with_keywords else UnitCatalog(
        [KnowledgeUnit(u.id, u.name, u.domain) for u in inputs.catalog.units], inputs.catalog.version)
    probe = ZeroShotTagger(inputs.embedder, catalog, ZeroShotParams(threshold=0.0))
    rows = [i for i, it in enumerate(inputs.items) if it.source == "mmlu" and real_split(it.id) != "heldout"
            and it.subject in SCIENCE_SUBJECTS | NON_SCIENCE_SUBJECTS]
    is_science = np.array([inputs.items[i].subject in SCIENCE_SUBJECTS for i in rows])
    if len(rows) < 2 or is_science.all() or not is_science.any():
        threshold = 0.5
    else:
        threshold = calibrate_threshold(probe.similarity(inputs.item_vectors[rows]).max(axis=1), is_science)
    return ZeroShotTagger(inputs.embedder, catalog, ZeroShotParams(threshold=threshold))


class _EncodesRepeatedOnce:
    """An Embedder that encodes each list of texts once: each zero-shot baseline encodes its unit texts
    twice (a probe, then calibrated), and both tag the same paper queries and gold items."""

    def __init__(self, embedder: Embedder) -> None:
        self.name = embedder.name
        self._embedder = embedder
        self._encoded: dict[tuple[str, ...], np.ndarray] = {}

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        key = tuple(texts)
        if key not in self._encoded:
            self._encoded[key] = self._embedder.encode(texts)
        return self._encoded[key]


def evaluate(inputs: TrainingInputs, tagger: Tagger, plan: DataPlan,
             data: DataSets | None = None) -> dict[str, Any]:
    inputs = replace(inputs, embedder=_EncodesRepeatedOnce(inputs.embedder))
    catalog = inputs.catalog
    paper = data.paper_test if data else paper_test_set(catalog, plan, inputs.writer)
    if data is None:
        data = build_datasets(catalog, inputs.items, name_similarity(catalog, inputs.embedder, inputs.item_vectors),
                              DataPlan(0, 0, 0, plan.keyword_heldout, plan.seed), weak_labeller(catalog))
    texts = [ex.text for ex in paper]
    held_texts = [it.text for it in data.heldout_items]
    held_weak = _weak_heldout(inputs, data)
    by_id = {it.id: i for i, it in enumerate(data.heldout_items)}
    weak_index = [by_id[ex.item_id] for ex in held_weak]
    # Encoded once here, read by the trained tagger's head and by the baselines (the wrapper's cache).
    paper_vectors = inputs.embedder.encode(texts)
    held_vectors = inputs.item_vectors[data.heldout_rows]
    started = time.perf_counter()
    tags = {"trained": (tagger.tag(texts, paper_vectors), tagger.tag(held_texts, held_vectors) if held_texts else [])}
    trained_seconds = time.perf_counter() - started
    baselines = {}
    tag_functions: dict[str, TagFunction] = {"trained": tagger.tag}
    for name, with_keywords in (("zeroshot", False), ("zeroshot_keywords", True)):
        baseline = zero_shot_baseline(inputs, with_keywords)
        held = baseline.tag_vectors(held_vectors) if held_texts else []
        tags[name] = (baseline.tag(texts, paper_vectors), held)
        baselines[name] = {"version": baseline.version, "threshold": baseline.params.threshold}
        tag_functions[name] = baseline.tag
    gold = _gold_evaluation(inputs, tag_functions)
    return {
        **gold,
        "paper_protocol": {"queries": len(paper),
                           **{k: paper_protocol(catalog, paper, v[0]) for k, v in tags.items()}},
        "real_heldout_domain_agreement": {k: real_agreement(catalog, data.heldout_items, v[1])
                                          for k, v in tags.items()},
        "real_heldout_weak_label_f1": {
            "note": "weak labels come from MiniLM name similarity (as the zero-shot tagger), biased towards it",
            **{k: weak_label_f1(catalog, held_weak, [v[1][i] for i in weak_index]) for k, v in tags.items()},
        },
        "baselines": baselines,
        "zeroshot_note": "zeroshot: unit names (what `corpus tag` uses by default); zeroshot_keywords: "
                         "names plus K_v",
        # With the texts' vectors given, as the retag and the ingest give them.
        "trained_items_per_s": round((len(texts) + len(held_texts)) / max(trained_seconds, 1e-9), 1),
    }


def _hand_labelled_train(inputs: TrainingInputs) -> tuple[list[GoldItem], np.ndarray, list[list[int]]]:
    """The hand-labelled `train` items among `inputs.items`, their stored vectors and unit columns (what
    both the teacher and the sentence-vector head learn from)."""
    column = {u.name: i for i, u in enumerate(inputs.catalog.units)}
    row_of = {it.id: r for r, it in enumerate(inputs.items)}
    train_gold = [g for g in inputs.gold if g.split == "train" and g.item.id in row_of]
    vectors = inputs.item_vectors[[row_of[g.item.id] for g in train_gold]]
    return train_gold, vectors, [[column[name] for name in g.gold] for g in train_gold]


def _teacher_examples(inputs: TrainingInputs) -> list[LabelledText]:
    """Teacher labels for the real items of the training split that no one labelled by hand."""
    catalog = inputs.catalog
    train_gold, vectors, labels = _hand_labelled_train(inputs)
    teacher = GoldNeighbourTeacher(vectors, labels, unit_prototypes(catalog.units, inputs.embedder))
    labelled = {g.item.id for g in train_gold}
    rows = [r for r, it in enumerate(inputs.items) if real_split(it.id) == "train" and it.id not in labelled]
    non_sci = catalog.non_scientific()
    if non_sci is None:
        raise ValueError("the unit catalog has no Non-Scientific unit")
    scientific = np.array([u.id != non_sci.id for u in catalog.units])
    return teacher_examples([inputs.items[r] for r in rows], inputs.item_vectors[rows], teacher,
                            [u.id for u in catalog.units], scientific, non_sci.id)


TagFunction = Callable[[Sequence[str], np.ndarray], list[list[UnitScore]]]  # texts, their vectors -> tags


def _gold_evaluation(inputs: TrainingInputs, taggers: Mapping[str, TagFunction]) -> dict[str, Any]:
    """Scores of each named tagger on the hand-labelled `dev` and `heldout` items."""
    if not inputs.gold:
        return {}
    catalog = inputs.catalog
    report: dict[str, Any] = {}
    for split in ("dev", "heldout"):
        items = [g for g in inputs.gold if g.split == split]
        if not items:
            continue
        texts = [g.item.text for g in items]
        vectors = inputs.embedder.encode(texts)
        report[split] = {name: gold_scores(catalog, items, [[catalog.by_id(s.unit_id).name for s in row]
                                                            for row in tag(texts, vectors)])
                         for name, tag in taggers.items()}
    return {"real_gold": report}


def _weak_heldout(inputs: TrainingInputs, data: DataSets) -> list[LabelledText]:
    sim = name_similarity(inputs.catalog, inputs.embedder, inputs.item_vectors[data.heldout_rows])
    return weakly_labelled(data.heldout_items, sim, weak_labeller(inputs.catalog))


def train(inputs: TrainingInputs, trainer: TaggerTrainer, artifacts: TaggerArtifacts, plan: DataPlan | None = None,
          config: TrainConfig | None = None, make_current: bool = True,
          progress: Progress = no_progress) -> TrainingResult:
    plan = plan or DataPlan()
    config = config or TrainConfig()
    catalog = inputs.catalog
    trainable = inputs.without_gold_checks()
    teacher = plan.real_labels == "teacher" and any(g.split == "train" for g in inputs.gold)
    similarity = None if teacher else name_similarity(catalog, inputs.embedder, trainable.item_vectors)
    data = build_datasets(catalog, trainable.items, similarity, plan, weak_labeller(catalog), inputs.writer,
                          inputs.writer)
    if teacher:
        data.train += _teacher_examples(trainable)
    data.train += gold_examples(catalog, [g for g in inputs.gold if g.split == "train"], plan.gold_repeats)
    data.validation += gold_examples(catalog, [g for g in inputs.gold if g.split == "dev"],
                                     plan.gold_calibration_repeats)
    if not data.train or not data.validation:
        raise ValueError("no training or validation examples: check the unit set and the corpus")
    column = {u.id: i for i, u in enumerate(catalog.units)}
    started = time.perf_counter()
    networks = trainer.train([ex.text for ex in data.train], _label_columns(data.train, column),
                             [ex.text for ex in data.validation], len(catalog.units), config, progress)
    head = _fit_head(inputs, config.head_blend)
    val_scores = networks.validation_scores
    if head is not None:
        val_scores = head.blended(val_scores, _encoded_once(inputs.embedder, [ex.text for ex in data.validation]))
    gold = np.zeros_like(val_scores, dtype=bool)
    for r, cols in enumerate(_label_columns(data.validation, column)):
        gold[r, cols] = True
    non_sci = catalog.non_scientific()
    non_sci_col = column[non_sci.id] if non_sci else None
    global_t, val_f1 = calibrate_global(val_scores, gold, non_sci_col)
    thresholds = calibrate_per_unit(val_scores, gold, global_t)
    train_seconds = time.perf_counter() - started
    origins: dict[str, int] = {}
    for ex in data.train:
        key = ex.origin.split(":")[0] + ("" if ex.origin.startswith("synthetic") else f":{ex.origin.split(':')[1]}")
        origins[key] = origins.get(key, 0) + 1
    examples = {"train": len(data.train), "validation": len(data.validation), "paper_test": len(data.paper_test),
                "real_heldout_items": len(data.heldout_items), **{f"train_{k}": v for k, v in sorted(origins.items())}}
    records: dict[str, Any] = {
        "training": {"seconds": round(train_seconds, 1),
                     "epoch_losses": [[round(x, 4) for x in h] for h in networks.epoch_losses],
                     "config": asdict(config), "plan": plan.as_dict(), "examples": examples,
                     "global_threshold": global_t, "validation_micro_f1_exact": round(val_f1, 4),
                     "units_source": inputs.units_source, "units_digest": _catalog_digest(catalog),
                     "writer": (inputs.writer.name if inputs.writer else "offline-composer"), **inputs.extra_records},
    }
    artifact = artifacts.save(trainer.export_onnx(networks), trainer.tokenizer_json(), [u.id for u in catalog.units],
                              [u.name for u in catalog.units], [u.domain for u in catalog.units], thresholds,
                              trainer.max_tokens, MAX_UNITS, records, make_current=make_current, head=head)
    evaluation = evaluate(trainable, artifacts.tagger(artifact, embedder=inputs.embedder), plan, data)
    artifact.records["evaluation"] = evaluation
    artifacts.save_records(artifact)
    return TrainingResult(artifact, train_seconds, examples, evaluation)


def _fit_head(inputs: TrainingInputs, blend: float) -> VectorHead | None:
    """The sentence-vector head on the hand-labelled `train` items' stored vectors (None: blend 0 or
    no such items); `dev` and `heldout` never train it."""
    if blend <= 0:
        return None
    train_gold, vectors, labels = _hand_labelled_train(inputs)
    if not train_gold:
        return None
    return fit_vector_head(vectors, labels, len(inputs.catalog.units), blend, inputs.embedder.name)


def _encoded_once(embedder: Embedder, texts: Sequence[str]) -> np.ndarray:
    """Each distinct text encoded once (the `dev` items repeat among the validation examples)."""
    distinct = list(dict.fromkeys(texts))
    vectors = embedder.encode(distinct)
    row = {t: r for r, t in enumerate(distinct)}
    return vectors[[row[t] for t in texts]]


def evaluate_artifact(inputs: TrainingInputs, artifacts: TaggerArtifacts, artifact: TaggerArtifact) -> dict[str, Any]:
    """`tagger eval`: rebuild the plan's test sets and re-measure; the result is stored in the manifest."""
    plan_data = artifact.records.get("training", {}).get("plan", {})
    plan = DataPlan(**plan_data) if plan_data else DataPlan()
    if [u.id for u in inputs.catalog.units] != artifact.unit_ids:
        raise ValueError("the unit set differs from the one the tagger was trained on")
    evaluation = evaluate(inputs, artifacts.tagger(artifact, embedder=inputs.embedder), plan)
    artifact.records["evaluation"] = evaluation
    artifacts.save_records(artifact)
    return evaluation
