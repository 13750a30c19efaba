"""The tagger ensemble's members trained side by side, one torch thread each, in forked processes.

A member's training step is small (a batch of 256 packed texts, a 1k x 512 x 642 head, sparse token
rows), so a second torch thread adds only 10-40% to one member's rate; members are independent, so
one process per member on one thread each uses the cores fully: 3 members of 20k real questions x 2
epochs took 18.8 s side by side on 2 cores against 26.7 s one after another on two threads, in one
run of benchmarks/bench_tagger_training.py; the full training's networks, 639 s against 823 s.

Every member trains on one thread on every path, so its weights do not depend on how many cores the
machine has, nor on whether it trained here or in a child: a small job (below `SIDE_BY_SIDE_FROM`
example passes per member: tests, tiny unit sets) trains here, one member after another, to the same
weights bit for bit (tests/unit/tagger/test_member_training.py).

Children are forked, as torch's DataLoader workers are, and like them set one torch thread before any
torch work, so they never enter the OpenMP pool the parent may have started. They share the data with
this process (copy on write; spawned children would start Python and torch again and receive ~100 MB
pickled each, and spawning re-imports a caller's main module). Each sends back its weights as numpy
arrays; progress flows through a shared array of batch counts that this process reports. Only the
CLI trains (`scicustom tagger train`), never a threaded server. Where fork is missing or unsafe
(Windows, macOS), the members train here one after another, to the same weights.
"""

from __future__ import annotations

import multiprocessing
import sys
import traceback
from collections.abc import Sequence
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from typing import Any

import numpy as np
import torch

from scicustom.adapters.torch_tagger_loop import train_tagger
from scicustom.adapters.torch_tagger_network import StaticTokenTagger
from scicustom.core.progress import Progress, no_progress
from scicustom.core.tagger_training.train_config import TrainConfig

SIDE_BY_SIDE_FROM = 200_000  # example passes (examples x epochs) per member
POLL_S = 0.5


@dataclass(frozen=True)
class MemberData:
    """What every member trains on: token ids packed end to end (text i starts at starts[i])."""

    token_vectors: np.ndarray
    log_weights: np.ndarray
    token_ids: np.ndarray
    starts: np.ndarray
    label_columns: Sequence[Sequence[int]]
    sample_weights: np.ndarray
    n_units: int

    @classmethod
    def of(cls, token_vectors: np.ndarray, log_weights: np.ndarray, rows: Sequence[Sequence[int]],
           label_columns: Sequence[Sequence[int]], sample_weights: np.ndarray, n_units: int) -> MemberData:
        lengths = np.fromiter((len(r) for r in rows), dtype=np.int64, count=len(rows))
        starts = np.zeros(len(rows), dtype=np.int64)
        np.cumsum(lengths[:-1], out=starts[1:])
        token_ids = (np.concatenate([np.asarray(r, dtype=np.int64) for r in rows]) if rows
                     else np.zeros(0, dtype=np.int64))
        return cls(token_vectors, log_weights, token_ids, starts, label_columns, sample_weights, n_units)

    def rows(self) -> list[np.ndarray]:
        return np.split(self.token_ids, self.starts[1:]) if len(self.starts) else []


def _network(data: MemberData, config: TrainConfig) -> StaticTokenTagger:
    return StaticTokenTagger(data.token_vectors, data.log_weights, data.n_units, hidden=config.hidden,
                             dropout=config.dropout, max_pool=config.max_pool)


def train_member(data: MemberData, config: TrainConfig, progress: Progress = no_progress,
                 step: str = "train") -> tuple[StaticTokenTagger, list[float]]:
    """One member from its seed alone (initial weights included), on this process's torch threads."""
    torch.manual_seed(config.seed)
    model = _network(data, config)
    history = train_tagger(model, data.rows(), data.label_columns, data.sample_weights, data.n_units, config,
                           progress, step)
    return model, history


def train_members(data: MemberData, configs: Sequence[TrainConfig], progress: Progress = no_progress,
                  side_by_side_from: int = SIDE_BY_SIDE_FROM) -> tuple[list[StaticTokenTagger], list[list[float]]]:
    """The members of `configs` and their per-epoch losses; each reports its batches as step
    "train k/n"."""
    steps = [f"train {k}/{len(configs)}" for k in range(1, len(configs) + 1)]
    can_fork = sys.platform.startswith("linux")
    if can_fork and len(configs) > 1 and len(data.starts) * max(c.epochs for c in configs) >= side_by_side_from:
        return _side_by_side(data, configs, steps, progress)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        trained = [train_member(data, config, progress, step) for config, step in zip(configs, steps, strict=True)]
    finally:
        torch.set_num_threads(threads)
    return [m for m, _ in trained], [h for _, h in trained]


def _side_by_side(data: MemberData, configs: Sequence[TrainConfig], steps: Sequence[str],
                  progress: Progress) -> tuple[list[StaticTokenTagger], list[list[float]]]:
    context = multiprocessing.get_context("fork")
    done = context.Array("q", len(configs), lock=False)
    totals = context.Array("q", len(configs), lock=False)
    children: list[Any] = []
    readers: dict[Any, int] = {}
    try:
        for index, config in enumerate(configs):
            reader, writer = context.Pipe(duplex=False)
            child = context.Process(target=_child, args=(data, config, index, done, totals, writer),
                                    name=f"tagger-member-{index + 1}", daemon=True)
            child.start()
            writer.close()
            children.append(child)
            readers[reader] = index
        results: dict[int, tuple[dict[str, np.ndarray], list[float]]] = {}
        reported = [0] * len(configs)
        while readers:
            for reader in wait(list(readers), timeout=POLL_S):
                index = readers.pop(reader)
                results[index] = _received(reader, index)
            _report(done, totals, reported, steps, progress)
        _report(done, totals, reported, steps, progress)
    finally:
        for child in children:
            if child.is_alive():
                child.terminate()
            child.join()
    members, histories = [], []
    for index, config in enumerate(configs):
        state, history = results[index]
        model = _network(data, config)
        model.load_state_dict({name: torch.from_numpy(array) for name, array in state.items()})
        members.append(model.eval())
        histories.append(history)
    return members, histories


def _received(reader: Connection, index: int) -> tuple[dict[str, np.ndarray], list[float]]:
    try:
        kind, payload = reader.recv()
    except EOFError:
        raise RuntimeError(f"tagger member {index + 1} ended without a result (killed?)") from None
    finally:
        reader.close()
    if kind == "error":
        raise RuntimeError(f"tagger member {index + 1} failed:\n{payload}")
    return payload  # type: ignore[no-any-return]


def _report(done: Any, totals: Any, reported: list[int], steps: Sequence[str], progress: Progress) -> None:
    for index, step in enumerate(steps):
        if totals[index] and done[index] > reported[index]:
            # One call per batch, as a member trained here reports them.
            for count in range(reported[index] + 1, done[index] + 1):
                progress(step, count, totals[index])
            reported[index] = done[index]


def _child(data: MemberData, config: TrainConfig, index: int, done: Any, totals: Any,
           writer: Connection) -> None:  # pragma: no cover - runs in a forked process
    torch.set_num_threads(1)

    def counted(step: str, count: int, total: int) -> None:
        totals[index] = total
        done[index] = count

    try:
        model, history = train_member(data, config, counted)
        writer.send(("ok", ({name: t.detach().numpy().copy() for name, t in model.state_dict().items()},
                            history)))
    except BaseException:
        writer.send(("error", traceback.format_exc()))
    finally:
        writer.close()
