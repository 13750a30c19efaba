"""Tagger experiment (issue 12): where the trained tagger loses real questions, and whether a head on
MiniLM sentence vectors gets them back. Not part of `make bench` nor of any build: it measures.

On the hand-labelled real questions (resources/tagger_gold), with `tagger evaluate`'s metrics
(gold_scores: the paper's fuzzy micro-F1, top-1 hit), it scores on `dev` and `heldout`:
  - served tagger: the current trained tagger as served (its network, and its head when it has one);
  - student: its token-vector network (ONNX) alone;
  - teacher: the nearest-labelled-items teacher (gold_teacher.py) the student is distilled from,
    fitted on the `train` split;
  - head: a multinomial logistic regression on the items' stored MiniLM vectors, fitted on the
    `train` split (a gold unit's sample weight 1/rank);
  - student + head, teacher + head, teacher + 2 head: sums of each one's scores scaled to a row
    maximum of 1;
  - ... + subject prior: plus w * log P(unit | the item's source and subject) / 10, the prior counted
    on the `train` labels (smoothed towards the overall unit frequencies), w chosen on `dev`.
The served tagger's unit lists come from its calibrated thresholds; the others keep their best unit,
and a unit that scores at least `ratio` times the best; `ratio` is chosen on `dev` from a grid.
"oracle-k" is each scorer's F1 when it is told how many gold units an item has and lists its top
that many: no decoding rule (thresholds, ratios, cardinality models) can beat it on the ranking.
"served decoding": (student + w * head) / (1 + w), decoded as the served tagger decodes, with per-unit
thresholds calibrated as `tagger train` calibrates them (the plan's synthetic validation queries and
the `dev` items), for each blend w: the paper protocol beside the real splits, the price of the head on
synthetic queries. The head reads MiniLM vectors, so serving it means the tagger takes them as input.
Also printed: the student's top-1 hit on the `train` items it was trained on (how much it memorises).

    SCICUSTOM_HOME=... .venv/bin/python benchmarks/experiment_tagger_embedding_heads.py

Writes benchmarks/results/tagger_embedding_heads.json. About 4 minutes on 2 cores
(1 of them encoding the validation and paper queries for the served decoding).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
from sklearn.linear_model import LogisticRegression

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine_info import machine_info

from scicustom.adapters.onnx_tagger import OnnxTagger
from scicustom.app.tagging.tagger_training import weak_labeller
from scicustom.app.tagging.training_requests import training_inputs
from scicustom.app.tagging.training_units import tagger_units
from scicustom.bootstrap import Context
from scicustom.core.tagger_training.data_plan import DataPlan, build_datasets
from scicustom.core.tagger_training.decoding import decode
from scicustom.core.tagger_training.evaluation import paper_protocol
from scicustom.core.tagger_training.gold_set import GoldItem, gold_examples, gold_scores
from scicustom.core.tagger_training.gold_teacher import GoldNeighbourTeacher, unit_prototypes
from scicustom.core.tagger_training.thresholds import calibrate_global, calibrate_per_unit

RESULTS = Path(__file__).resolve().parent / "results" / "tagger_embedding_heads.json"
RATIOS = (0.3, 0.5, 0.6, 0.75, 0.9, 1.01)  # 1.01: the best unit alone
PRIOR_WEIGHTS = (0.1, 0.2, 0.3, 0.5)
PRIOR_SMOOTHING = 5.0  # pseudo-items of the overall unit frequencies in each subject's prior
SERVED_BLENDS = (0.0, 0.25, 0.5, 1.0, 2.0, 3.0, 4.0)  # 0: the network alone


def _scaled(scores: np.ndarray) -> np.ndarray:
    return scores / np.maximum(scores.max(axis=1, keepdims=True), 1e-9)


def _decoded(scores: np.ndarray, names: Sequence[str], ratio: float, at_most: int = 3) -> list[list[str]]:
    out = []
    for row in scores:
        order = np.argsort(-row, kind="stable")[:at_most]
        best = row[order[0]]
        out.append([names[c] for c in order if c == order[0] or (row[c] > 0 and row[c] >= ratio * best)])
    return out


def _oracle_k(scores: np.ndarray, names: Sequence[str], gold: Sequence[GoldItem]) -> list[list[str]]:
    return [[names[c] for c in np.argsort(-row, kind="stable")[:len(g.gold)]]
            for row, g in zip(scores, gold, strict=True)]


def _subject_priors(train: Sequence[GoldItem], column: dict[str, int]) -> Callable[[GoldItem], np.ndarray]:
    """P(unit | source, subject) from the `train` labels, smoothed towards the overall frequencies."""
    overall = np.full(len(column), 0.1)
    counts: dict[tuple[str, str], np.ndarray] = {}
    items: dict[tuple[str, str], int] = {}
    for g in train:
        key = (g.item.source, g.item.subject)
        items[key] = items.get(key, 0) + 1
        for name in g.gold:
            counts.setdefault(key, np.zeros(len(column)))[column[name]] += 1
            overall[column[name]] += 1
    overall /= overall.sum()

    def prior(g: GoldItem) -> np.ndarray:
        key = (g.item.source, g.item.subject)
        n = items.get(key, 0)
        return overall if n == 0 else (counts.get(key, 0) + PRIOR_SMOOTHING * overall) / (n + PRIOR_SMOOTHING)

    return prior


def served_decoding(inputs: Any, student: OnnxTagger, head_scores: Callable[[np.ndarray], np.ndarray],
                    split: dict[str, list[GoldItem]], vectors: dict[str, np.ndarray],
                    trained_plan: dict[str, Any]) -> dict[str, Any]:
    """Per blend w, (student + w * head) / (1 + w) with thresholds calibrated as `tagger train` does:
    paper-protocol micro-F1 and the real splits' F1 and top-1 hit. `trained_plan`: the student's data
    plan (its manifest's), so the validation and paper queries are the ones it was calibrated and
    tested on (they do not depend on the training count)."""
    catalog = inputs.catalog
    plan = DataPlan(**{**trained_plan, "synthetic": 1})
    data = build_datasets(catalog, [], None, plan, weak_labeller(catalog))
    validation = data.validation + gold_examples(catalog, split["dev"], plan.gold_calibration_repeats)
    column = {u.id: i for i, u in enumerate(catalog.units)}
    gold = np.zeros((len(validation), len(column)), dtype=bool)
    for r, ex in enumerate(validation):
        gold[r, [column[u] for u in ex.unit_ids]] = True
    texts = {"validation": [ex.text for ex in validation], "paper": [ex.text for ex in data.paper_test],
             **{s: [g.item.text for g in split[s]] for s in ("dev", "heldout")}}
    parts = {k: (student.network_scores(t), head_scores(vectors[k] if k in vectors else inputs.embedder.encode(t)))
             for k, t in texts.items()}
    non_sci = catalog.non_scientific()
    non_sci_col = column[non_sci.id] if non_sci else None
    unit_ids = [u.id for u in catalog.units]
    out: dict[str, Any] = {}
    for w in SERVED_BLENDS:
        blended = {k: (st + w * hd) / (1 + w) for k, (st, hd) in parts.items()}
        global_t, _ = calibrate_global(blended["validation"], gold, non_sci_col)
        thresholds = calibrate_per_unit(blended["validation"], gold, global_t)

        def names(k: str, t: np.ndarray = thresholds, b: dict[str, np.ndarray] = blended) -> list[list[str]]:
            return [[catalog.by_id(u.unit_id).name for u in row] for row in decode(b[k], t, unit_ids, non_sci_col)]

        out[str(w)] = {"paper_micro_f1": round(paper_protocol(catalog, data.paper_test, decode(
            blended["paper"], thresholds, unit_ids, non_sci_col))["micro_f1"], 4),
            **{s: gold_scores(catalog, split[s], names(s)) for s in ("dev", "heldout")}}
    return out


def main() -> None:
    ctx = Context.from_environment()
    inputs = training_inputs(lambda: tagger_units(None, ctx.ontology_workspace.keywords_file, lambda: ctx.catalog,
                                                  ctx.settings.units_file), ctx.corpus, ctx.embedder)
    catalog = inputs.catalog
    names = [u.name for u in catalog.units]
    column = {n: i for i, n in enumerate(names)}
    row_of = {it.id: r for r, it in enumerate(inputs.items)}
    split = {s: [g for g in inputs.gold if g.split == s and g.item.id in row_of] for s in ("train", "dev", "heldout")}
    vectors = {s: inputs.item_vectors[[row_of[g.item.id] for g in items]] for s, items in split.items()}

    artifact = ctx.tagger_artifacts.load(None)
    student = OnnxTagger(artifact.model_path.parent)
    if list(artifact.unit_ids) != [u.id for u in catalog.units]:
        raise SystemExit("the current tagger was trained on another unit set")
    teacher = GoldNeighbourTeacher(vectors["train"], [[column[n] for n in g.gold] for g in split["train"]],
                                   unit_prototypes(catalog.units, inputs.embedder))
    x, y, w = [], [], []
    for vector, g in zip(vectors["train"], split["train"], strict=True):
        for rank, name in enumerate(g.gold):
            x.append(vector)
            y.append(column[name])
            w.append(1.0 / (1 + rank))
    head = LogisticRegression(C=8.0, max_iter=400).fit(np.array(x), np.array(y), sample_weight=np.array(w))

    def head_scores(v: np.ndarray) -> np.ndarray:
        out = np.zeros((len(v), len(names)), dtype=np.float32)
        out[:, head.classes_] = head.predict_proba(v)
        return out

    prior = _subject_priors(split["train"], column)
    scores: dict[str, dict[str, np.ndarray]] = {}
    log_priors: dict[str, np.ndarray] = {}
    for s in ("dev", "heldout"):
        texts = [g.item.text for g in split[s]]
        st, te = _scaled(student.network_scores(texts)), _scaled(teacher.scores(vectors[s]))
        hd = _scaled(head_scores(vectors[s]))
        scores[s] = {"student": st, "teacher": te, "head": hd, "student + head": st + hd, "teacher + head": te + hd,
                     "teacher + 2 head": te + 2 * hd}
        log_priors[s] = np.log(np.array([prior(g) for g in split[s]]) + 1e-6) / 10
    blend = scores["dev"]["teacher + 2 head"] / 3
    weight = max(PRIOR_WEIGHTS, key=lambda w: gold_scores(catalog, split["dev"], _oracle_k(
        blend + w * log_priors["dev"], names, split["dev"]))["micro_f1"])
    for s in ("dev", "heldout"):
        scores[s]["teacher + 2 head + subject prior"] = scores[s]["teacher + 2 head"] / 3 + weight * log_priors[s]

    report: dict[str, Any] = {}
    for s in ("dev", "heldout"):
        texts = [g.item.text for g in split[s]]
        served_row = report.setdefault("served tagger", {})
        served_row[s] = gold_scores(catalog, split[s], [[catalog.by_id(u.unit_id).name for u in row]
                                                        for row in student.tag(texts, vectors[s])])
        served_row[f"{s}_oracle_k"] = gold_scores(catalog, split[s],
                                                  _oracle_k(student.scores(texts, vectors[s]), names, split[s]))
    for name in scores["dev"]:
        ratio = max(RATIOS, key=lambda r: gold_scores(catalog, split["dev"],
                                                      _decoded(scores["dev"][name], names, r))["micro_f1"])
        report[name] = {s: gold_scores(catalog, split[s], _decoded(scores[s][name], names, ratio))
                        for s in ("dev", "heldout")}
        report[name]["ratio"] = ratio
    for name in scores["dev"]:
        for s in ("dev", "heldout"):
            report[name][f"{s}_oracle_k"] = gold_scores(catalog, split[s], _oracle_k(scores[s][name], names, split[s]))
    report["teacher + 2 head + subject prior"]["prior_weight"] = weight
    served = served_decoding(inputs, student, head_scores, split, vectors, artifact.records["training"]["plan"])
    train_texts = [g.item.text for g in split["train"]]
    best = student.network_scores(train_texts).argmax(axis=1)
    memorised = gold_scores(catalog, split["train"], [[names[c]] for c in best])["top1_hit"]

    print(f"{'scorer':<34} {'dev F1':>7} {'oracle-k':>8} {'dev top-1':>9} {'held-out F1':>11} {'oracle-k':>8} "
          f"{'held-out top-1':>14}")
    for name, r in report.items():
        print(f"{name:<34} {r['dev']['micro_f1']:>7.3f} {r['dev_oracle_k']['micro_f1']:>8.3f} "
              f"{r['dev']['top1_hit']:>9.3f} {r['heldout']['micro_f1']:>11.3f} "
              f"{r['heldout_oracle_k']['micro_f1']:>8.3f} {r['heldout']['top1_hit']:>14.3f}")
    print(f"student top-1 hit on its own training items: {memorised:.3f}")
    print(f"served decoding, (student + w * head) / (1 + w):\n{'w':>5} {'paper F1':>8} {'dev F1':>7} "
          f"{'dev top-1':>9} {'held-out F1':>11} {'held-out top-1':>14}")
    for w, r in served.items():
        print(f"{w:>5} {r['paper_micro_f1']:>8.3f} {r['dev']['micro_f1']:>7.3f} {r['dev']['top1_hit']:>9.3f} "
              f"{r['heldout']['micro_f1']:>11.3f} {r['heldout']['top1_hit']:>14.3f}")
    result = {"experiment": "tagger_embedding_heads", "date": datetime.now(UTC).isoformat(timespec="seconds"),
              "machine": machine_info(), "tagger": artifact.version,
              "items": {s: len(v) for s, v in split.items()}, "scorers": report,
              "student_train_top1": memorised, "served_decoding": served}
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(f"written to {RESULTS}")


if __name__ == "__main__":
    main()
