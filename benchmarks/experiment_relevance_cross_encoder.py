"""Relevance experiment (issue 13): a MiniLM cross-encoder fine-tuned on labelled (topic, item) pairs,
measured on the held-out split of the relevance development set, alone and beside the relevance
model's four features. Not part of any build, nor of `make bench` (it trains for minutes): it measures
whether the signal is worth shipping.

Training pairs, none from the held-out split:
  - the tagger's hand labels (resources/tagger_gold: train + the dev split of devset.jsonl): a gold
    unit is a positive query for its item; the two units of the same domain whose names lie nearest
    a gold unit's, and one more unit of that domain at random, are same-field negatives. A unit's
    query is its name and its first exclusive keywords (SCICUSTOM_HOME's keywords file), written as
    requirement topic texts are;
  - the relevance dev split (175 pairs, each three times), with the requirement's topic text.
The cross-encoder starts from the packaged all-MiniLM-L6-v2 weights with a new one-logit head.

    SCICUSTOM_HOME=... .venv/bin/python benchmarks/experiment_relevance_cross_encoder.py \
        [--items 1500] [--epochs 1] [--features DUMP]

--features DUMP: a `bench_relevance.py --dump` file; the relevance model's features are then refitted
with the cross-encoder's logit (logistic regression on the dev split) and measured on held-out.
Writes benchmarks/results/relevance_cross_encoder.json. About 16 min per epoch of 1,500 items on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
import torch
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import roc_auc_score

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_relevance import GOLD, RESOURCES, load_requirements
from machine_info import machine_info

from scicustom.adapters.packaged_models import minilm_path

RESULTS = Path(__file__).resolve().parent / "results" / "relevance_cross_encoder.json"
MAX_TOKENS = 160
BATCH = 16
FEATURES = ("z", "phrase_z", "specific_terms", "contrast")
Pair = tuple[str, str, float]


def item_text(row: dict[str, Any]) -> str:
    return f"{row['question']}\nAnswer: {row['answer']}"


def jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line.strip()]


def training_pairs(n_items: int, rng: random.Random) -> list[Pair]:
    home = Path(os.environ.get("SCICUSTOM_HOME", ".scicustom"))
    units = {u["name"]: u for u in json.loads(
        (home / "ontology" / "knowledge_units_with_keywords.json").read_text(encoding="utf-8"))["knowledge_units"]}
    by_domain: dict[str, list[str]] = defaultdict(list)
    for unit in units.values():
        by_domain[unit["domain"]].append(unit["name"])

    def query(name: str) -> str:
        return f"{name.lower()}. {name.lower()}: {', '.join(units[name].get('keywords', [])[:8])}."

    from sentence_transformers import SentenceTransformer

    names = list(units)
    vectors = SentenceTransformer(str(minilm_path()), device="cpu").encode(names, normalize_embeddings=True)
    column = {n: i for i, n in enumerate(names)}
    similarity = vectors @ vectors.T
    tagged = jsonl(RESOURCES / "tagger_gold" / "train.jsonl")
    tagged += [r for r in jsonl(RESOURCES / "tagger_gold" / "devset.jsonl") if r["split"] == "dev"]
    rng.shuffle(tagged)
    pairs: list[Pair] = []
    for row in tagged[:n_items]:
        gold = [g for g in row["gold"] if g in units]
        if not gold:
            continue
        pairs += [(query(g), item_text(row), 1.0) for g in gold[:2]]
        others = sorted((n for n in by_domain[units[gold[0]]["domain"]] if n not in gold),
                        key=lambda n: -similarity[column[gold[0]], column[n]])
        pairs += [(query(n), item_text(row), 0.0) for n in others[:2]]
        if len(others) > 2:
            pairs.append((query(rng.choice(others[2:])), item_text(row), 0.0))
    requirements = load_requirements()
    for row in jsonl(GOLD / "devset.jsonl"):
        if row["split"] == "dev":
            pairs += [(requirements[row["requirement"]].topic_text, item_text(row), float(row["relevant"]))] * 3
    rng.shuffle(pairs)
    return pairs


def train(pairs: list[Pair], epochs: int, rng: random.Random) -> tuple[Any, Any]:
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(str(minilm_path()))
    model = AutoModelForSequenceClassification.from_pretrained(str(minilm_path()), num_labels=1)
    optimiser = torch.optim.AdamW(model.parameters(), lr=3e-5, weight_decay=0.01)
    steps = epochs * -(-len(pairs) // BATCH)
    schedule = torch.optim.lr_scheduler.LambdaLR(  # 10% warm-up, then linear decay
        optimiser, lambda s: min(1.0, (s + 1) / (0.1 * steps)) * max(0.0, 1 - s / steps))
    loss_fn = torch.nn.BCEWithLogitsLoss()
    model.train()
    started, step = time.perf_counter(), 0
    for _ in range(epochs):
        rng.shuffle(pairs)
        for start in range(0, len(pairs), BATCH):
            chunk = pairs[start : start + BATCH]
            batch = tokenizer([c[0] for c in chunk], [c[1] for c in chunk], truncation="only_second",
                              max_length=MAX_TOKENS, padding=True, return_tensors="pt")
            loss = loss_fn(model(**batch).logits.squeeze(-1), torch.tensor([c[2] for c in chunk]))
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimiser.step()
            schedule.step()
            optimiser.zero_grad()
            step += 1
            if step % 50 == 0:
                print(f"step {step}/{steps} loss {loss.item():.3f} {time.perf_counter() - started:.0f} s", flush=True)
    model.eval()
    return tokenizer, model


@torch.no_grad()
def logits(tokenizer: Any, model: Any, queries: list[str], texts: list[str]) -> np.ndarray:
    out: list[float] = []
    for start in range(0, len(queries), 32):
        batch = tokenizer(queries[start : start + 32], texts[start : start + 32], truncation="only_second",
                          max_length=MAX_TOKENS, padding=True, return_tensors="pt")
        out += model(**batch).logits.squeeze(-1).tolist()
    return np.asarray(out)


def curve(gold: np.ndarray, score: np.ndarray) -> dict[str, Any]:
    """AUC, and the best precision at each recall floor (the threshold picked on these pairs: optimistic)."""
    best = {}
    for floor in (0.3, 0.4, 0.5, 0.6):
        options = [((gold & (score >= t)).sum() / (score >= t).sum(), t) for t in np.unique(score)
                   if (gold & (score >= t)).sum() >= floor * gold.sum()]
        best[f"precision_at_recall_{floor}"] = round(float(max(options)[0]), 3)
    return {"auc": round(float(roc_auc_score(gold, score)), 3), **best}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--items", type=int, default=1500, help="tagger-labelled items to draw pairs from")
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--features", type=Path, help="a bench_relevance.py --dump file")
    args = parser.parse_args()
    rng = random.Random(0)
    torch.manual_seed(0)
    torch.set_num_threads(os.cpu_count() or 1)
    pairs = training_pairs(args.items, rng)
    print(f"{len(pairs)} training pairs, {int(sum(p[2] for p in pairs))} positive", flush=True)
    started = time.perf_counter()
    tokenizer, model = train(pairs, args.epochs, rng)
    train_s = time.perf_counter() - started
    requirements = load_requirements()
    rows = jsonl(GOLD / "devset.jsonl")
    topics = [requirements[r["requirement"]].topic_text for r in rows]
    ce = logits(tokenizer, model, topics, [item_text(r) for r in rows])
    gold = np.array([bool(r["relevant"]) for r in rows])
    held = np.array([r["split"] == "heldout" for r in rows])
    result: dict[str, Any] = {
        "benchmark": "relevance_cross_encoder", "pairs": len(pairs), "items": args.items, "epochs": args.epochs,
        "train_s": round(train_s, 1),
        "machine": machine_info(torch=torch.__version__),
        "cross_encoder_heldout": curve(gold[held], ce[held]),
    }
    if args.features:
        dump = {(r["requirement"], r["item_id"]): r["features"] for r in jsonl(args.features)}
        base = np.array([[dump[(r["requirement"], r["item_id"])][f] for f in FEATURES] for r in rows])
        for name, x in (("features_heldout", base), ("features_and_cross_encoder_heldout", np.c_[base, ce])):
            fitted = LogisticRegression(C=1.0).fit(x[~held], gold[~held])
            result[name] = curve(gold[held], fitted.predict_proba(x[held])[:, 1])
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
