"""Tagger training speed (issue 17, goal 1): examples/s of one ensemble member trained on packed texts
(`train_tagger`: embedding_bag over the batch's distinct tokens) against the padded training step it
replaced (batch x length x dim tensors, one sparse gradient row per token), in the same run, on the
same real corpus texts, labels, batches and seed. Both compute the same function (the unit test
tests/unit/tagger/test_packed_training.py checks logits and gradients), so their per-epoch losses
should track each other; both are printed.

Then the default ensemble (TrainConfig().members(), 3 networks) on the same data: its members one after
another on this process's torch threads (how they trained before) against `train_members`, one
process per member on one thread each, side by side.

Texts are corpus items of SCICUSTOM_HOME, labelled with the current tagger's stored tags (what the
network learns does not change its cost). Settings: BENCH_TRAIN_ITEMS (default 20000),
BENCH_TRAIN_EPOCHS (default 2). Writes benchmarks/results/tagger_training.json.
"""

from __future__ import annotations

import json
import os
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import torch
from machine_info import machine_info
from torch import nn

from scicustom.adapters.minilm_token_vectors import distil_token_vectors
from scicustom.adapters.packaged_models import minilm_path
from scicustom.adapters.torch_member_training import MemberData, train_members
from scicustom.adapters.torch_tagger_loop import (
    descend,
    length_batches,
    optimisers,
    start_at_label_priors,
    train_tagger,
)
from scicustom.adapters.torch_tagger_network import StaticTokenTagger, idf_log_weights
from scicustom.adapters.wordpiece_tokenizer import MAX_TOKENS, WordPieceTokenizer, pad_ids
from scicustom.bootstrap import Context
from scicustom.core.tagger_training.train_config import TrainConfig

RESULTS = Path(__file__).resolve().parent / "results" / "tagger_training.json"
N_ITEMS = int(os.environ.get("BENCH_TRAIN_ITEMS", "20000"))
EPOCHS = int(os.environ.get("BENCH_TRAIN_EPOCHS", "2"))


def padded_training(model: StaticTokenTagger, rows: list[list[int]], labels: list[list[int]], n_units: int,
                    config: TrainConfig) -> list[float]:
    """The training loop before packing (commit 8895f86), kept here as the baseline."""
    torch.manual_seed(config.seed)
    rng = np.random.default_rng(config.seed)
    start_at_label_priors(model, labels, n_units)
    lengths = np.array([len(r) for r in rows])
    dense, sparse = optimisers(model, config)
    loss_fn = nn.BCEWithLogitsLoss(reduction="none")
    history = []
    model.train()
    for _ in range(config.epochs):
        total = 0.0
        for batch in length_batches(lengths, config.batch_size, rng):
            ids, mask = pad_ids([rows[i] for i in batch])
            ids_t, mask_t = torch.from_numpy(ids), torch.from_numpy(mask)
            dropped = mask_t * (torch.rand(mask_t.shape) >= config.token_dropout)
            mask_t = torch.where(dropped.sum(dim=1, keepdim=True) > 0, dropped, mask_t)
            target = torch.zeros((len(batch), n_units))
            for row, i in enumerate(batch):
                target[row, labels[i]] = 1.0
            loss = loss_fn(model(ids_t, mask_t), target).sum(dim=1).mean()
            descend(loss, dense, sparse)
            total += float(loss.detach()) * len(batch)
        history.append(total / len(rows))
    return history


def main() -> None:
    ctx = Context.from_environment()
    items = ctx.corpus.load_items()
    tags = ctx.corpus.load_tags(ctx.tagger.version)
    column = {u.id: i for i, u in enumerate(ctx.catalog.units)}
    picked = [items[i] for i in np.random.default_rng(0).choice(len(items), min(N_ITEMS, len(items)), replace=False)]
    labels = [[column[u] for u, _ in tags.get(it.id, []) if u in column] or [0] for it in picked]
    rows = WordPieceTokenizer(minilm_path() / "tokenizer.json", MAX_TOKENS).ids([it.text for it in picked])
    vectors = distil_token_vectors(ctx.settings.model_cache)
    log_weights = idf_log_weights(rows, len(vectors))
    config = TrainConfig(epochs=EPOCHS, ensemble_embedding_factors=(1.0,))
    runs: dict[str, dict[str, Any]] = {}
    for name in ("padded", "packed"):
        model = StaticTokenTagger(vectors, log_weights, len(column), hidden=config.hidden, dropout=config.dropout,
                                  max_pool=config.max_pool)
        started = time.perf_counter()
        if name == "padded":
            losses = padded_training(model, rows, labels, len(column), config)
        else:
            losses = train_tagger(model, rows, labels, np.ones(len(rows), dtype=np.float32), len(column), config)
        seconds = time.perf_counter() - started
        runs[name] = {"seconds": round(seconds, 1), "examples_per_s": round(len(rows) * EPOCHS / seconds, 1),
                      "epoch_losses": [round(x, 4) for x in losses]}
        print(f"{name}: {runs[name]}", flush=True)
    speedup = runs["padded"]["seconds"] / runs["packed"]["seconds"]
    ensemble = ensemble_timing(vectors, log_weights, rows, labels, len(column))
    result = {"benchmark": "tagger_training", "date": datetime.now(UTC).isoformat(timespec="seconds"),
              "machine": machine_info(), "items": len(rows), "epochs": EPOCHS,
              "mean_tokens": round(float(np.mean([len(r) for r in rows])), 1), "baseline": "padded",
              "packed": {**runs["packed"], "speedup": round(speedup, 2)}, "padded": runs["padded"],
              "ensemble": ensemble}
    RESULTS.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(f"packed training {speedup:.2f}x the padded baseline "
          f"({runs['packed']['examples_per_s']} vs {runs['padded']['examples_per_s']} examples/s)")
    print(f"ensemble of {ensemble['members']}: side by side {ensemble['side_by_side_s']} s, one after another "
          f"{ensemble['one_after_another_s']} s on {ensemble['threads']} threads: {ensemble['speedup']}x")


def ensemble_timing(vectors: np.ndarray, log_weights: np.ndarray, rows: list[list[int]], labels: list[list[int]],
                    n_units: int) -> dict[str, Any]:
    members = TrainConfig(epochs=EPOCHS).members()
    weights = np.ones(len(rows), dtype=np.float32)
    started = time.perf_counter()
    for config in members:
        torch.manual_seed(config.seed)
        model = StaticTokenTagger(vectors, log_weights, n_units, hidden=config.hidden, dropout=config.dropout,
                                  max_pool=config.max_pool)
        train_tagger(model, rows, labels, weights, n_units, config)
    one_after_another = time.perf_counter() - started
    started = time.perf_counter()
    train_members(MemberData.of(vectors, log_weights, rows, labels, weights, n_units), members, side_by_side_from=0)
    side_by_side = time.perf_counter() - started
    return {"members": len(members), "threads": torch.get_num_threads(),
            "one_after_another_s": round(one_after_another, 1), "side_by_side_s": round(side_by_side, 1),
            "speedup": round(one_after_another / side_by_side, 2)}


if __name__ == "__main__":
    main()
