from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import torch

from scicustom.adapters.onnx_tagger import OnnxTagger
from scicustom.adapters.packaged_models import minilm_path
from scicustom.adapters.torch_onnx_export import export_onnx
from scicustom.adapters.torch_tagger_network import StaticTokenTagger
from scicustom.adapters.wordpiece_tokenizer import WordPieceTokenizer, pad_ids
from scicustom.core.tagger_training.decoding import decode

TEXTS = ["How does a catalyst lower the activation energy?", "capsid",
         "A 45-year-old man presents with chest pain radiating to the left arm. Which artery is occluded?",
         "Who wrote the Critique of Pure Reason?\nAnswer: Kant"]


def _model(seed: int = 0) -> StaticTokenTagger:
    rng = np.random.default_rng(seed)
    torch.manual_seed(seed)
    model = StaticTokenTagger(rng.normal(size=(30522, 16)).astype(np.float32),
                              rng.normal(0, 0.3, size=30522).astype(np.float32), n_units=7, hidden=24)
    # Give the batch norm real statistics so the exported graph exercises them.
    width = model.norm.num_features  # mean and max halves
    model.norm.running_mean.copy_(torch.randn(width))
    model.norm.running_var.copy_(torch.rand(width) + 0.5)
    return model.eval()


def test_onnx_scores_match_torch(tmp_path: Path) -> None:
    model = _model()
    onnx_bytes = export_onnx(model)
    onnx.checker.check_model(onnx.load_from_string(onnx_bytes))
    session = ort.InferenceSession(onnx_bytes, providers=["CPUExecutionProvider"])
    ids, mask = WordPieceTokenizer(minilm_path() / "tokenizer.json").batch(TEXTS)
    with torch.inference_mode():
        expected = torch.sigmoid(model(torch.from_numpy(ids), torch.from_numpy(mask))).numpy()
    got = session.run(None, {"input_ids": ids, "attention_mask": mask})[0]
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


def test_scores_do_not_depend_on_padding() -> None:
    session = ort.InferenceSession(export_onnx(_model(1)), providers=["CPUExecutionProvider"])
    tokenizer = WordPieceTokenizer(minilm_path() / "tokenizer.json")
    rows = tokenizer.ids(TEXTS)
    together = session.run(None, dict(zip(["input_ids", "attention_mask"], pad_ids(rows), strict=True)))[0]
    for i, row in enumerate(rows):
        alone = session.run(None, dict(zip(["input_ids", "attention_mask"], pad_ids([row]), strict=True)))[0]
        np.testing.assert_allclose(alone[0], together[i], rtol=1e-5, atol=1e-6)


def test_embedded_adapter_equals_decoded_torch_scores(tiny_trained) -> None:  # type: ignore[no-untyped-def]
    _, result = tiny_trained
    tagger = OnnxTagger(result.artifact.directory)
    texts = ["What is the focal length of a converging lens?", "Which virus has reverse transcriptase?"]
    scores = tagger.scores(texts)
    a = tagger.artifact
    assert tagger.tag(texts) == decode(scores, a.thresholds, a.unit_ids, a.non_scientific_index, a.max_units)
    assert tagger.version == a.version and a.version.startswith("trained-")
