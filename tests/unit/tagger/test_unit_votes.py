"""The per-token unit-vote branch of the tagger network (network.py, `unit_votes=True`)."""

from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
import torch

from scicustom.tagger.network import VOTE_SCALE, StaticTokenTagger
from scicustom.tagger.onnx_export import export_onnx
from scicustom.tagger.training import TrainConfig, train_tagger


def _pair(seed: int = 0) -> tuple[StaticTokenTagger, StaticTokenTagger]:
    rng = np.random.default_rng(seed)
    vectors = rng.normal(size=(12, 4)).astype(np.float32)
    log_weights = np.log(np.arange(1, 13, dtype=np.float32))
    torch.manual_seed(seed)
    plain = StaticTokenTagger(vectors, log_weights, n_units=3, hidden=5).eval()
    voting = StaticTokenTagger(vectors, log_weights, n_units=3, hidden=5, unit_votes=True).eval()
    voting.load_state_dict(plain.state_dict(), strict=False)
    return plain, voting


def test_zero_votes_leave_the_plain_model_unchanged() -> None:
    plain, voting = _pair()
    ids = torch.tensor([[1, 2, 3], [4, 5, 0]])
    mask = torch.tensor([[1, 1, 1], [1, 1, 0]])
    with torch.inference_mode():
        torch.testing.assert_close(voting(ids, mask), plain(ids, mask))


def test_votes_add_the_weighted_mean_of_the_tokens_votes() -> None:
    plain, voting = _pair()
    with torch.no_grad():
        voting.votes.weight[1] = torch.tensor([1.0, 0.0, -1.0])  # type: ignore[union-attr]
        voting.votes.weight[3] = torch.tensor([0.0, 2.0, 0.0])  # type: ignore[union-attr]
    # Token weights exp(log k) = k: token 1 weighs 2, token 3 weighs 4 -> shares 1/3 and 2/3.
    ids, mask = torch.tensor([[1, 3, 7]]), torch.tensor([[1, 1, 0]])
    with torch.inference_mode():
        delta = (voting(ids, mask) - plain(ids, mask))[0]
    expected = VOTE_SCALE * torch.tensor([1 / 3, 4 / 3, -1 / 3])
    torch.testing.assert_close(delta, expected, rtol=1e-5, atol=1e-5)


def test_onnx_export_keeps_the_votes() -> None:
    _, voting = _pair(1)
    with torch.no_grad():
        voting.votes.weight.normal_(0, 0.1)  # type: ignore[union-attr]
    ids = np.array([[1, 2, 3, 4], [5, 6, 0, 0]], dtype=np.int64)
    mask = np.array([[1, 1, 1, 1], [1, 1, 0, 0]], dtype=np.int64)
    session = ort.InferenceSession(export_onnx(voting), providers=["CPUExecutionProvider"])
    got = session.run(None, {"input_ids": ids, "attention_mask": mask})[0]
    with torch.inference_mode():
        expected = torch.sigmoid(voting(torch.from_numpy(ids), torch.from_numpy(mask))).numpy()
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


def test_training_moves_the_votes_of_label_tokens_towards_their_unit() -> None:
    _, voting = _pair(2)
    rows = [[1, 2], [3, 4], [1, 5], [3, 6]] * 8
    labels = [[0], [2], [0], [2]] * 8
    train_tagger(voting, rows, labels, np.ones(len(rows), dtype=np.float32), 3,
                 TrainConfig(epochs=3, batch_size=8, hidden=5, unit_votes=True, token_dropout=0.0))
    votes = voting.votes.weight.detach()  # type: ignore[union-attr]
    assert votes[1, 0] > 0 > votes[1, 2]
    assert votes[3, 2] > 0 > votes[3, 0]
    assert float(votes[9].abs().sum()) == pytest.approx(0.0)  # never seen: untouched
