"""The tagger ensemble: member configs, the averaged scoring graph and its ONNX export."""

from __future__ import annotations

import numpy as np
import onnxruntime as ort
import pytest
import torch
from torch import nn

from scicustom.adapters.torch_onnx_export import export_onnx
from scicustom.adapters.torch_tagger_network import ScoringGraph, StaticTokenTagger
from scicustom.adapters.torch_tagger_trainer import ensemble_scores, predict_scores
from scicustom.core.tagger_training.train_config import TrainConfig


def _member(bias: float, seed: int = 0) -> StaticTokenTagger:
    rng = np.random.default_rng(seed)
    torch.manual_seed(seed)
    model = StaticTokenTagger(rng.normal(size=(20, 4)).astype(np.float32), np.zeros(20, dtype=np.float32),
                              n_units=3, hidden=5)
    with torch.no_grad():
        _output_layer(model).weight.zero_()  # logits are the bias alone: hand-computable probabilities
        _output_layer(model).bias.fill_(bias)
    return model.eval()


def _output_layer(model: StaticTokenTagger) -> nn.Linear:
    layer = model.head[-1]
    assert isinstance(layer, nn.Linear)
    return layer


def test_member_configs_scale_the_embedding_rate_and_step_the_seed() -> None:
    config = TrainConfig(embedding_learning_rate=0.01, seed=7, ensemble_embedding_factors=(1.0, 0.1, 2.0))
    members = config.members()
    assert [m.seed for m in members] == [7, 8, 9]
    assert [m.embedding_learning_rate for m in members] == pytest.approx([0.01, 0.001, 0.02])
    assert all(m.ensemble_embedding_factors == (1.0,) and m.epochs == config.epochs for m in members)
    assert len(TrainConfig(ensemble_embedding_factors=(1.0,)).members()) == 1


def test_scoring_graph_averages_member_probabilities() -> None:
    ids, mask = torch.tensor([[1, 2, 3]]), torch.tensor([[1, 1, 1]])
    graph = ScoringGraph([_member(0.0), _member(np.log(3.0))]).eval()
    with torch.inference_mode():
        got = graph(ids, mask)
    # sigmoid(0) = 0.5, sigmoid(log 3) = 0.75 -> mean 0.625 for every unit.
    torch.testing.assert_close(got, torch.full((1, 3), 0.625), rtol=1e-6, atol=1e-6)
    rows = [[1, 2, 3], [4, 5]]
    np.testing.assert_allclose(ensemble_scores([_member(0.0), _member(np.log(3.0))], rows),
                               np.full((2, 3), 0.625, dtype=np.float32), rtol=1e-6)


def test_scoring_graph_needs_a_member() -> None:
    with pytest.raises(ValueError):
        ScoringGraph([])


def test_exported_ensemble_matches_the_mean_of_member_scores() -> None:
    members = [_member(0.0, seed=1), _member(0.0, seed=2)]
    for m in members:
        with torch.no_grad():
            _output_layer(m).weight.normal_(0, 0.5)
    rows = [[1, 2, 3, 4], [5, 6]]
    ids = np.array([[1, 2, 3, 4], [5, 6, 0, 0]], dtype=np.int64)
    mask = np.array([[1, 1, 1, 1], [1, 1, 0, 0]], dtype=np.int64)
    session = ort.InferenceSession(export_onnx(members), providers=["CPUExecutionProvider"])
    got = session.run(None, {"input_ids": ids, "attention_mask": mask})[0]
    expected = (predict_scores(members[0], rows) + predict_scores(members[1], rows)) / 2
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)
    assert not np.allclose(predict_scores(members[0], rows), predict_scores(members[1], rows))
