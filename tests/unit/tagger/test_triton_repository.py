from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnx
from google.protobuf import text_format
from tritonclient.grpc import model_config_pb2 as mc

from scicustom.adapters.onnx_tagger import OnnxTagger
from scicustom.adapters.triton_model_repository import write_triton_repository
from scicustom.adapters.wordpiece_tokenizer import WordPieceTokenizer
from scicustom.core.tagger_training.decoding import selected_columns
from scicustom.tagger.triton import postprocess_model, tokenizer_model

ONNX_TO_TRITON = {onnx.TensorProto.INT64: mc.TYPE_INT64, onnx.TensorProto.FLOAT: mc.TYPE_FP32}


def _config(path: Path) -> mc.ModelConfig:
    return text_format.Parse(path.read_text(encoding="utf-8"), mc.ModelConfig())


def _onnx_shape(value: onnx.ValueInfoProto) -> list[int | str]:
    return [d.dim_param or d.dim_value for d in value.type.tensor_type.shape.dim]


def test_repository_configs_match_the_onnx_graph(tiny_trained, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    _, result = tiny_trained
    artifact = result.artifact
    repo = write_triton_repository(artifact, tmp_path / "triton", max_batch=64)
    assert sorted(p.name for p in repo.iterdir() if p.is_dir()) == ["tagger", "tagger_onnx", "tagger_postprocess",
                                                                     "tagger_tokenizer"]
    onnx_cfg = _config(repo / "tagger_onnx" / "config.pbtxt")
    graph = onnx.load(str(repo / "tagger_onnx" / "1" / "model.onnx")).graph
    assert onnx_cfg.platform == "onnxruntime_onnx" and onnx_cfg.max_batch_size == 64
    assert onnx_cfg.HasField("dynamic_batching")
    for configured, actual in ((onnx_cfg.input, graph.input), (onnx_cfg.output, graph.output)):
        assert [t.name for t in configured] == [v.name for v in actual]
        for tensor, value in zip(configured, actual, strict=True):
            assert tensor.data_type == ONNX_TO_TRITON[value.type.tensor_type.elem_type]
            shape = _onnx_shape(value)
            full = [-1, *tensor.dims]  # max_batch_size > 0: Triton adds the batch dimension
            assert len(full) == len(shape)
            for want, have in zip(full, shape, strict=True):
                assert isinstance(have, str) or want == have, (tensor.name, full, shape)
    assert list(onnx_cfg.output[0].dims) == [len(artifact.unit_ids)]


def test_ensemble_wires_tensors_that_exist(tiny_trained, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    _, result = tiny_trained
    repo = write_triton_repository(result.artifact, tmp_path / "triton")
    configs = {p.name: _config(p / "config.pbtxt") for p in repo.iterdir() if p.is_dir()}
    ensemble = configs["tagger"]
    assert ensemble.platform == "ensemble"
    available = {t.name for t in ensemble.input}
    for step in ensemble.ensemble_scheduling.step:
        model = configs[step.model_name]
        assert set(step.input_map) == {t.name for t in model.input}
        assert set(step.input_map.values()) <= available
        assert set(step.output_map) <= {t.name for t in model.output}
        available |= set(step.output_map.values())
    assert {t.name for t in ensemble.output} <= available
    tok = configs["tagger_tokenizer"]
    onnx_cfg = configs["tagger_onnx"]
    assert [list(t.dims) for t in tok.output] == [list(t.dims) for t in onnx_cfg.input]
    assert tok.backend == "python" and (repo / "tagger_tokenizer" / "1" / "model.py").exists()


def test_python_backend_steps_equal_the_embedded_path(tiny_trained, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    _, result = tiny_trained
    artifact = result.artifact
    repo = write_triton_repository(artifact, tmp_path / "triton")
    texts = ["What is the focal length of a lens?", "capsid of a virus " * 200]
    tokenizer = tokenizer_model.load_tokenizer(repo / "tagger_tokenizer" / "1" / "tokenizer.json", artifact.max_tokens)
    ids, mask = tokenizer_model.encode_texts(tokenizer, texts, artifact.max_tokens)
    embedded = WordPieceTokenizer(artifact.tokenizer_path, artifact.max_tokens).ids(texts)
    for row, want in enumerate(embedded):
        assert ids[row, : len(want)].tolist() == want and int(mask[row].sum()) == len(want)
    spec = json.loads((repo / "tagger_postprocess" / "1" / "decoding.json").read_text())
    tagger = OnnxTagger(artifact.directory)
    scores = tagger.scores(texts)
    out_ids, out_scores, counts = postprocess_model.outputs_for(
        scores, spec["unit_ids"], np.asarray(spec["thresholds"], dtype=np.float32), spec["non_scientific_index"],
        spec["max_units"])
    expected = tagger.tag(texts)
    for r, tags in enumerate(expected):
        n = int(counts[r, 0])
        assert [v.decode() for v in out_ids[r, :n]] == [t.unit_id for t in tags]
        assert out_scores[r, :n].tolist() == [np.float32(t.score) for t in tags]
    assert postprocess_model.select(scores, artifact.thresholds, artifact.non_scientific_index, 8) == \
        selected_columns(scores, artifact.thresholds, artifact.non_scientific_index, 8)
