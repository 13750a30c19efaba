"""The ensemble's members trained side by side in forked processes are the members trained here, one
after another, bit for bit; progress, errors and the caller's torch threads are handled."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from scicustom.adapters.torch_member_training import MemberData, train_members
from scicustom.core.tagger_training.train_config import TrainConfig

VOCAB, DIM, UNITS = 60, 8, 5
CONFIG = TrainConfig(epochs=2, batch_size=8, hidden=6, learning_rate=1e-2, embedding_learning_rate=1e-2,
                     ensemble_embedding_factors=(1.0, 0.1))


def _data(labels: list[list[int]] | None = None) -> MemberData:
    rng = np.random.default_rng(3)
    rows = [rng.integers(1, VOCAB, size=n).tolist() for n in rng.integers(1, 12, size=40)]
    columns = labels if labels is not None else [[int(r[0]) % UNITS] for r in rows]
    return MemberData.of(rng.normal(size=(VOCAB, DIM)).astype(np.float32),
                         rng.normal(scale=0.3, size=VOCAB).astype(np.float32), rows, columns,
                         np.ones(len(rows), dtype=np.float32), UNITS)


def test_packed_rows_round_trip() -> None:
    rows = [[5, 6, 7], [8], [9, 10]]
    data = MemberData.of(np.zeros((11, 2), dtype=np.float32), np.zeros(11, dtype=np.float32), rows, [[0]] * 3,
                         np.ones(3, dtype=np.float32), 1)
    assert [r.tolist() for r in data.rows()] == rows


def test_side_by_side_members_equal_members_trained_here() -> None:
    data = _data()
    threads = torch.get_num_threads()
    here, here_losses = train_members(data, CONFIG.members(), side_by_side_from=10**9)
    assert torch.get_num_threads() == threads  # one thread while training, the caller's after
    reported: dict[str, list[tuple[int, int]]] = {}
    apart, apart_losses = train_members(data, CONFIG.members(), side_by_side_from=0,
                                        progress=lambda s, d, t: reported.setdefault(s, []).append((d, t)))
    assert apart_losses == here_losses
    for a, b in zip(apart, here, strict=True):
        assert not a.training
        for (name, x), (_, y) in zip(a.state_dict().items(), b.state_dict().items(), strict=True):
            assert torch.equal(x, y), name
    # The members differ from each other (seed and rate), so the comparison above is not vacuous.
    assert not torch.equal(apart[0].head[-1].weight, apart[1].head[-1].weight)
    assert sorted(reported) == ["train 1/2", "train 2/2"]
    for steps in reported.values():
        assert [d for d, _ in steps] == list(range(1, len(steps) + 1)) and steps[-1][0] == steps[-1][1]


def test_a_failing_member_raises_its_error_here() -> None:
    data = _data(labels=[[UNITS + 3]] * 40)  # a label column the network does not have
    with pytest.raises(RuntimeError, match=r"(?s)tagger member \d failed:.*The size of tensor"):
        train_members(data, CONFIG.members(), side_by_side_from=0)
