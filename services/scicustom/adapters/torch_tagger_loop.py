"""The training loop of one tagger network: multi-label BCE over all units on packed, length-bucketed
batches with token dropout; Adam for the head, SparseAdam for the token vectors a batch touches."""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence

import numpy as np
import torch
from torch import nn

from scicustom.adapters.torch_tagger_network import StaticTokenTagger
from scicustom.core.progress import Progress, no_progress
from scicustom.core.tagger_training.train_config import TrainConfig

log = logging.getLogger(__name__)


def length_batches(lengths: np.ndarray, batch_size: int, rng: np.random.Generator) -> list[np.ndarray]:
    """Shuffled batches of similar length (less padding), in shuffled order."""
    order = rng.permutation(len(lengths))
    chunk = batch_size * 32
    batches = []
    for start in range(0, len(order), chunk):
        block = order[start : start + chunk]
        block = block[np.argsort(lengths[block], kind="stable")]
        batches.extend(block[i : i + batch_size] for i in range(0, len(block), batch_size))
    return [batches[i] for i in rng.permutation(len(batches))]


def packed_batch(rows: Sequence[np.ndarray], token_dropout: float) -> tuple[torch.Tensor, torch.Tensor]:
    """The texts' token ids end to end and where each text starts, each token dropped with
    probability `token_dropout` (drawn from torch's generator) but never every token of a text."""
    lengths = np.array([len(r) for r in rows])
    token_ids = torch.from_numpy(np.concatenate(rows))
    if token_dropout > 0:
        text_of = torch.from_numpy(np.repeat(np.arange(len(rows)), lengths))
        keep = torch.rand(len(token_ids)) >= token_dropout
        kept = torch.zeros(len(rows), dtype=torch.int64).index_add_(0, text_of, keep.to(torch.int64))
        keep |= (kept == 0)[text_of]
        token_ids = token_ids[keep]
        lengths = torch.bincount(text_of[keep], minlength=len(rows)).numpy()
    offsets = np.zeros(len(rows), dtype=np.int64)
    np.cumsum(lengths[:-1], out=offsets[1:])
    return token_ids, torch.from_numpy(offsets)


def start_at_label_priors(model: StaticTokenTagger, label_columns: Sequence[Sequence[int]], n_units: int) -> None:
    """Output biases at the label log-odds: the first epoch then learns texts, not priors."""
    counts = np.bincount([c for cols in label_columns for c in cols], minlength=n_units).astype(np.float64)
    prior = np.clip((counts + 0.5) / (len(label_columns) + 1.0), 1e-6, 0.5)
    with torch.no_grad():
        model.head[-1].bias.copy_(torch.from_numpy(np.log(prior / (1 - prior)).astype(np.float32)))


def optimisers(model: StaticTokenTagger, config: TrainConfig) -> tuple[torch.optim.Adam, torch.optim.SparseAdam]:
    """Adam for the head and batch norm; SparseAdam for the token vectors and weights a batch touches."""
    dense = torch.optim.Adam([*model.head.parameters(), *model.norm.parameters()], lr=config.learning_rate)
    sparse = torch.optim.SparseAdam([model.embedding.weight, model.log_weight.weight],
                                    lr=config.embedding_learning_rate)
    return dense, sparse


def descend(loss: torch.Tensor, *optimisers: torch.optim.Optimizer) -> None:
    """One gradient step of every optimiser on `loss`."""
    for optimiser in optimisers:
        optimiser.zero_grad()
    loss.backward()  # type: ignore[no-untyped-call]
    for optimiser in optimisers:
        optimiser.step()


def train_tagger(model: StaticTokenTagger, token_rows: Sequence[Sequence[int] | np.ndarray],
                 label_columns: Sequence[Sequence[int]], sample_weights: np.ndarray, n_units: int,
                 config: TrainConfig, progress: Progress = no_progress, step: str = "train") -> list[float]:
    """Trains in place; returns the mean loss per epoch. `progress` counts batches over all epochs."""
    torch.manual_seed(config.seed)
    rng = np.random.default_rng(config.seed)
    start_at_label_priors(model, label_columns, n_units)
    lengths = np.array([len(r) for r in token_rows])
    arrays = [np.asarray(r, dtype=np.int64) for r in token_rows]
    dense, sparse = optimisers(model, config)
    loss_fn = nn.BCEWithLogitsLoss(reduction="none")
    history = []
    model.train()
    done = 0
    for epoch in range(config.epochs):
        started, total, seen = time.perf_counter(), 0.0, 0
        batches = length_batches(lengths, config.batch_size, rng)
        for batch in batches:
            token_ids, offsets = packed_batch([arrays[i] for i in batch], config.token_dropout)
            target = torch.zeros((len(batch), n_units))
            label_rows = np.repeat(np.arange(len(batch)), [len(label_columns[i]) for i in batch])
            target[label_rows, np.fromiter((c for i in batch for c in label_columns[i]), dtype=np.int64)] = 1.0
            weight = torch.from_numpy(sample_weights[batch].astype(np.float32))
            loss = (loss_fn(model.packed_logits(token_ids, offsets), target).sum(dim=1) * weight).mean()
            descend(loss, dense, sparse)
            total += float(loss.detach()) * len(batch)
            seen += len(batch)
            done += 1
            progress(step, done, len(batches) * config.epochs)
        history.append(total / max(seen, 1))
        log.info("epoch %d: loss %.4f (%.0f s)", epoch + 1, history[-1], time.perf_counter() - started)
    model.eval()
    return history
