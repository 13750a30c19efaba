"""Training on packed texts (embedding_bag over the batch's distinct tokens) computes what the padded,
exported graph computes: the same logits and the same gradients, and token dropout never empties a text."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from scicustom.adapters.torch_tagger_loop import packed_batch, train_tagger
from scicustom.adapters.torch_tagger_network import StaticTokenTagger
from scicustom.adapters.wordpiece_tokenizer import pad_ids
from scicustom.core.tagger_training.train_config import TrainConfig

VOCAB, DIM, UNITS = 50, 8, 6


def _model(seed: int = 0, max_pool: bool = True) -> StaticTokenTagger:
    rng = np.random.default_rng(seed)
    torch.manual_seed(seed)
    return StaticTokenTagger(rng.normal(size=(VOCAB, DIM)).astype(np.float32),
                             rng.normal(scale=0.5, size=VOCAB).astype(np.float32), UNITS, hidden=7, dropout=0.0,
                             max_pool=max_pool)


def _texts(seed: int = 1) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    # Repeated tokens within and across texts, and a one-token text.
    return [rng.integers(1, 12, size=n).astype(np.int64) for n in (5, 1, 9, 3, 9)]


@pytest.mark.parametrize("max_pool", [True, False])
def test_packed_logits_equal_the_padded_forward(max_pool: bool) -> None:
    model = _model(max_pool=max_pool).eval()
    texts = _texts()
    ids, mask = pad_ids([t.tolist() for t in texts])
    token_ids, offsets = packed_batch(texts, token_dropout=0.0)
    with torch.no_grad():
        padded = model(torch.from_numpy(ids), torch.from_numpy(mask))
        packed = model.packed_logits(token_ids, offsets)
    torch.testing.assert_close(packed, padded, rtol=1e-5, atol=1e-5)


def test_packed_gradients_equal_the_padded_ones() -> None:
    texts = _texts(3)
    ids, mask = pad_ids([t.tolist() for t in texts])
    token_ids, offsets = packed_batch(texts, token_dropout=0.0)
    target = torch.zeros((len(texts), UNITS))
    target[[0, 2, 4], [1, 3, 5]] = 1.0
    grads = []
    for logits_of in (lambda m: m(torch.from_numpy(ids), torch.from_numpy(mask)),
                      lambda m: m.packed_logits(token_ids, offsets)):
        model = _model(seed=4).train()  # batch norm on batch statistics, as in training
        torch.nn.functional.binary_cross_entropy_with_logits(logits_of(model), target).backward()
        grads.append([model.embedding.weight.grad.to_dense(), model.log_weight.weight.grad.to_dense(),
                      *(p.grad for p in model.head.parameters())])
    for padded, packed in zip(*grads, strict=True):
        torch.testing.assert_close(packed, padded, rtol=1e-4, atol=1e-6)
    assert grads[1][0].abs().sum() > 0


def test_offsets_mark_where_each_text_starts() -> None:
    token_ids, offsets = packed_batch([np.array([4, 5]), np.array([6]), np.array([7, 8, 9])], token_dropout=0.0)
    assert token_ids.tolist() == [4, 5, 6, 7, 8, 9]
    assert offsets.tolist() == [0, 2, 3]


@settings(max_examples=60, deadline=None)
@given(lengths=st.lists(st.integers(1, 12), min_size=1, max_size=20), rate=st.floats(0.0, 0.99),
       seed=st.integers(0, 2**16))
def test_dropout_keeps_order_and_never_empties_a_text(lengths: list[int], rate: float, seed: int) -> None:
    torch.manual_seed(seed)
    texts = [np.arange(100 * i, 100 * i + n, dtype=np.int64) for i, n in enumerate(lengths)]
    token_ids, offsets = packed_batch(texts, token_dropout=rate)
    ends = [*offsets.tolist()[1:], len(token_ids)]
    for text, start, end in zip(texts, offsets.tolist(), ends, strict=True):
        kept = token_ids[start:end].tolist()
        assert kept, "a text lost every token"
        assert set(kept) <= set(text.tolist()) and kept == sorted(kept)  # a subsequence of the text


def test_training_is_deterministic_for_a_seed() -> None:
    # At this size torch runs single-threaded. At full size on 2 threads, separate processes differ
    # in the 4th decimal of the loss (multi-threaded float reductions), the padded loop as much.
    rng = np.random.default_rng(5)
    rows = [rng.integers(1, VOCAB, size=int(n)).tolist() for n in rng.integers(1, 12, size=40)]
    labels = [[int(r[0]) % UNITS] for r in rows]
    config = TrainConfig(epochs=2, batch_size=8, seed=3)
    states = []
    for _ in range(2):
        model = _model(seed=6)
        losses = train_tagger(model, rows, labels, np.ones(len(rows), dtype=np.float32), UNITS, config)
        states.append((losses, {k: v.clone() for k, v in model.state_dict().items()}))
    assert states[0][0] == states[1][0]
    for key, value in states[0][1].items():
        assert torch.equal(value, states[1][1][key]), key
    assert states[0][0][1] < states[0][0][0]  # it learns
