from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from google.protobuf import json_format, text_format
from onnx import TensorProto, helper
from tritonclient.grpc import model_config_pb2 as mc

from scicustom.adapters.minilm_onnx_embedder import OnnxMiniLMEmbedder
from scicustom.adapters.minilm_onnx_export import ensure_minilm_onnx, minilm_onnx_name
from scicustom.adapters.onnx_tagger import OnnxTagger
from scicustom.adapters.tagger_artifact_store import TaggerArtifactStore
from scicustom.adapters.triton_model_repository import TritonModelRepository, write_triton_repository
from scicustom.adapters.wordpiece_tokenizer import WordPieceTokenizer
from scicustom.core.errors import PreconditionFailed
from scicustom.core.tagger_training.artifact import TaggerArtifact
from scicustom.core.tagger_training.decoding import selected_columns
from scicustom.core.tagger_training.vector_head import DEFAULT_BLEND, VectorHead, fit_vector_head
from scicustom.tagger.triton import postprocess_model, tokenizer_model

ONNX_TO_TRITON = {onnx.TensorProto.INT64: mc.TYPE_INT64, onnx.TensorProto.FLOAT: mc.TYPE_FP32}
TRITON_TO_NUMPY = {mc.TYPE_INT64: np.int64, mc.TYPE_FP32: np.float32, mc.TYPE_INT32: np.int32,
                   mc.TYPE_STRING: np.object_}
HIDDEN = 384
TEXTS = ["What is the focal length of a lens?", "Which virus family includes influenza?",
         "Who wrote the Critique of Pure Reason?", "capsid of a virus " * 200]


def _config(path: Path) -> mc.ModelConfig:
    return text_format.Parse(path.read_text(encoding="utf-8"), mc.ModelConfig())


def _configs(repo: Path) -> dict[str, mc.ModelConfig]:
    return {p.name: _config(p / "config.pbtxt") for p in repo.iterdir() if p.is_dir()}


def _onnx_shape(value: onnx.ValueInfoProto) -> list[int | str]:
    return [d.dim_param or d.dim_value for d in value.type.tensor_type.shape.dim]


def _assert_matches_graph(config: mc.ModelConfig, graph: onnx.GraphProto) -> None:
    """Names, types and (batch-prefixed) dims of the config against the ONNX graph's inputs/outputs."""
    for configured, actual in ((config.input, graph.input), (config.output, graph.output)):
        assert [t.name for t in configured] == [v.name for v in actual]
        for tensor, value in zip(configured, actual, strict=True):
            assert tensor.data_type == ONNX_TO_TRITON[value.type.tensor_type.elem_type]
            shape = _onnx_shape(value)
            full = [-1, *tensor.dims]  # max_batch_size > 0: Triton adds the batch dimension
            assert len(full) == len(shape)
            for want, have in zip(full, shape, strict=True):
                assert isinstance(have, str) or want == have, (tensor.name, full, shape)


def _assert_wired(configs: dict[str, mc.ModelConfig]) -> None:
    """Every step reads tensors produced before it, with the dims and types its model declares."""
    ensemble = configs["tagger"]
    assert ensemble.platform == "ensemble"
    available = {t.name: (t.data_type, list(t.dims)) for t in ensemble.input}
    for step in ensemble.ensemble_scheduling.step:
        model = configs[step.model_name]
        inputs = {t.name: (t.data_type, list(t.dims)) for t in model.input}
        outputs = {t.name: (t.data_type, list(t.dims)) for t in model.output}
        assert set(step.input_map) == set(inputs)
        for model_input, tensor in step.input_map.items():
            assert available[tensor] == inputs[model_input], (step.model_name, model_input)
        assert set(step.output_map) <= set(outputs)
        available |= {tensor: outputs[model_output] for model_output, tensor in step.output_map.items()}
    assert {t.name for t in ensemble.output} <= set(available)


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
    _assert_matches_graph(onnx_cfg, graph)
    assert list(onnx_cfg.output[0].dims) == [len(artifact.unit_ids)]


def test_ensemble_wires_tensors_that_exist(tiny_trained, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    _, result = tiny_trained
    repo = write_triton_repository(result.artifact, tmp_path / "triton")
    configs = _configs(repo)
    _assert_wired(configs)
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


# --- versions with a sentence-vector head -------------------------------------------------------------


def _head(units: int, embedder: str, dimension: int = HIDDEN) -> VectorHead:
    """A head fitted on random unit vectors; unit 5 (Non-Scientific) is never labelled, so it has no class."""
    rng = np.random.default_rng(3)
    vectors = rng.normal(size=(60, dimension)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    labels = [[int(i % 5)] + ([int((i + 1) % 5)] if i % 3 == 0 else []) for i in range(60)]
    head = fit_vector_head(vectors, labels, units, DEFAULT_BLEND, embedder)
    assert head is not None
    return head


def _with_head(base: TaggerArtifact, root: Path, head: VectorHead, max_tokens: int | None = None,
               tokenizer_json: bytes | None = None) -> TaggerArtifact:
    """`base`'s network saved again with `head` (and low thresholds, so rows keep several units)."""
    return TaggerArtifactStore(root).save(
        base.model_path.read_bytes(), tokenizer_json or base.tokenizer_path.read_bytes(), base.unit_ids,
        base.unit_names, base.unit_domains, np.full(len(base.unit_ids), 0.12, dtype=np.float32),
        max_tokens or base.max_tokens, base.max_units, {}, head=head)


def _fake_sentence_graph(path: Path, hidden: int = HIDDEN) -> Path:
    """MiniLM's interface (ids, mask, type ids -> last_hidden_state [batch, sequence, hidden]) in a few nodes."""
    inputs = [helper.make_tensor_value_info(n, TensorProto.INT64, ["batch", "sequence"])
              for n in ("input_ids", "attention_mask", "token_type_ids")]
    output = helper.make_tensor_value_info("last_hidden_state", TensorProto.FLOAT, ["batch", "sequence", hidden])
    scale = helper.make_tensor("scale", TensorProto.FLOAT, [hidden], np.linspace(0.1, 1.0, hidden).tolist())
    axes = helper.make_tensor("axes", TensorProto.INT64, [1], [2])
    nodes = [helper.make_node("Cast", ["input_ids"], ["ids_f"], to=TensorProto.FLOAT),
             helper.make_node("Unsqueeze", ["ids_f", "axes"], ["ids_3d"]),
             helper.make_node("Mul", ["ids_3d", "scale"], ["last_hidden_state"])]
    graph = helper.make_graph(nodes, "fake_minilm", inputs, [output], initializer=[scale, axes])
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), str(path))
    return path


@pytest.fixture(scope="module")
def minilm_graph(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The real fp32 MiniLM export (about 15 s on 2 cores), once for this module."""
    return ensure_minilm_onnx(tmp_path_factory.mktemp("model_cache"))


@pytest.fixture(scope="module")
def headed(tiny_trained, tmp_path_factory: pytest.TempPathFactory) -> TaggerArtifact:  # type: ignore[no-untyped-def]
    _, result = tiny_trained
    base = result.artifact
    return _with_head(base, tmp_path_factory.mktemp("headed"), _head(len(base.unit_ids), minilm_onnx_name()))


class _Tensor:
    def __init__(self, name: str, data: np.ndarray) -> None:
        self._name, self._data = name, np.asarray(data)

    def name(self) -> str:
        return self._name

    def as_numpy(self) -> np.ndarray:
        return self._data


class _Response:
    def __init__(self, output_tensors: list[_Tensor] | None = None, error: str | None = None) -> None:
        self.output_tensors, self.error = output_tensors or [], error


def _fake_backend_utils() -> ModuleType:
    """The slice of Triton's `triton_python_backend_utils` that the two model files use."""
    module = ModuleType("triton_python_backend_utils")
    module.Tensor = _Tensor  # type: ignore[attr-defined]
    module.InferenceResponse = _Response  # type: ignore[attr-defined]
    module.TritonError = str  # type: ignore[attr-defined]
    module.get_input_tensor_by_name = lambda request, name: request[name]  # type: ignore[attr-defined]
    return module


def _run_python_model(folder: Path, config: mc.ModelConfig, inputs: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The repository's model.py as Triton's Python backend runs it: its config as JSON, one request."""
    name = f"triton_model_{config.name}"
    spec = importlib.util.spec_from_file_location(name, folder / "1" / "model.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the file runs
    try:
        spec.loader.exec_module(module)
        model = module.TritonPythonModel()
        model.initialize({"model_config": json_format.MessageToJson(config, preserving_proto_field_name=True)})
        [response] = model.execute([{k: _Tensor(k, v) for k, v in inputs.items()}])
    finally:
        del sys.modules[name]
    assert response.error is None, response.error
    return {t.name(): t.as_numpy() for t in response.output_tensors}


def _run_ensemble(repo: Path, texts: list[str]) -> dict[str, np.ndarray]:
    """The ensemble's steps in order, in process: Python models as above, ONNX models on onnxruntime.
    Each model's outputs must have the types and [batch, *dims] shapes its config declares."""
    configs = _configs(repo)
    tensors: dict[str, np.ndarray] = {"text": np.array([t.encode() for t in texts], dtype=object).reshape(-1, 1)}
    for step in configs["tagger"].ensemble_scheduling.step:
        config = configs[step.model_name]
        inputs = {model_input: tensors[tensor] for model_input, tensor in step.input_map.items()}
        if config.backend == "python":
            outputs = _run_python_model(repo / config.name, config, inputs)
        else:
            session = ort.InferenceSession(str(repo / config.name / "1" / "model.onnx"),
                                           providers=["CPUExecutionProvider"])
            outputs = dict(zip([o.name for o in session.get_outputs()], session.run(None, inputs), strict=True))
        for declared in config.output:
            value = outputs[declared.name]
            assert list(value.shape) == [len(texts), *declared.dims], (config.name, declared.name, value.shape)
            assert value.dtype == TRITON_TO_NUMPY[declared.data_type], (config.name, declared.name, value.dtype)
        tensors |= {tensor: outputs[model_output] for model_output, tensor in step.output_map.items()}
    return tensors


def _assert_same_units(out_ids: np.ndarray, out_scores: np.ndarray, counts: np.ndarray, expected: list[Any]) -> None:
    for r, tags in enumerate(expected):
        n = int(counts[r].reshape(-1)[0])
        assert [v.decode() for v in out_ids[r, :n]] == [t.unit_id for t in tags], r
        np.testing.assert_allclose(out_scores[r, :n], [t.score for t in tags], atol=1e-5)


def test_head_repository_configs_match_their_graphs(headed: TaggerArtifact, minilm_graph: Path,
                                                    tmp_path: Path) -> None:
    repo = write_triton_repository(headed, tmp_path / "triton", max_batch=64, sentence_graph=lambda: minilm_graph)
    configs = _configs(repo)
    assert sorted(configs) == ["tagger", "tagger_onnx", "tagger_postprocess", "tagger_sentence", "tagger_tokenizer"]
    _assert_wired(configs)
    sentence = configs["tagger_sentence"]
    assert sentence.platform == "onnxruntime_onnx" and sentence.max_batch_size == 64
    assert sentence.HasField("dynamic_batching")
    assert sentence.instance_group[0].kind == mc.ModelInstanceGroup.KIND_GPU
    _assert_matches_graph(sentence, onnx.load(str(repo / "tagger_sentence" / "1" / "model.onnx")).graph)
    _assert_matches_graph(configs["tagger_onnx"], onnx.load(str(repo / "tagger_onnx" / "1" / "model.onnx")).graph)
    assert [list(t.dims) for t in sentence.input] == [[256]] * 3  # MiniLM's max_seq_length
    assert list(sentence.output[0].dims) == [256, HIDDEN]
    # The tiny tagger reads MiniLM's own tokenizer.json at 256 tokens: one file, ids reused.
    params = configs["tagger_tokenizer"].parameters
    assert params["sentence_tokenizer"].string_value == "tokenizer.json"
    assert params["sentence_tokens"].string_value == "256"
    assert not (repo / "tagger_tokenizer" / "1" / "sentence_tokenizer.json").exists()
    spec = json.loads((repo / "tagger_postprocess" / "1" / "decoding.json").read_text())
    head = postprocess_model.Head.load(repo / "tagger_postprocess" / "1" / spec["vector_head"])
    assert np.array_equal(head.weights, headed.head.weights) and head.blend == headed.head.blend  # type: ignore[union-attr]
    assert "tagger_sentence" in (repo / "README.md").read_text()


@pytest.mark.parametrize("separate_tokenizer", [False, True], ids=["shared-ids", "own-tokenizer-64"])
def test_head_ensemble_in_process_equals_the_embedded_tagger(tiny_trained, headed: TaggerArtifact,  # type: ignore[no-untyped-def]
                                                             minilm_graph: Path, tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch,
                                                             separate_tokenizer: bool) -> None:
    artifact = headed
    if separate_tokenizer:  # another file (same vocabulary) at another width: MiniLM's inputs tokenized apart
        tokenizer_json = json.dumps(json.loads(headed.tokenizer_path.read_bytes()), indent=1).encode()
        artifact = _with_head(tiny_trained[1].artifact, tmp_path / "store", headed.head,  # type: ignore[arg-type]
                              max_tokens=64, tokenizer_json=tokenizer_json)
    repo = write_triton_repository(artifact, tmp_path / "triton", sentence_graph=lambda: minilm_graph)
    assert (repo / "tagger_tokenizer" / "1" / "sentence_tokenizer.json").exists() == separate_tokenizer
    monkeypatch.setitem(sys.modules, "triton_python_backend_utils", _fake_backend_utils())
    tensors = _run_ensemble(repo, TEXTS)
    embedder = OnnxMiniLMEmbedder(minilm_graph, minilm_onnx_name())
    # The fixed-width padding leaves the platform embedder's vectors as they are (to float noise).
    pooled = postprocess_model.sentence_vectors(tensors["hidden"], tensors["sentence_mask"])
    np.testing.assert_allclose(pooled, embedder.encode(TEXTS), atol=1e-5)
    expected = OnnxTagger(artifact.directory, embedder=embedder).tag(TEXTS)
    assert max(len(tags) for tags in expected) > 1  # the comparison covers multi-unit rows
    _assert_same_units(tensors["unit_ids"], tensors["scores"], tensors["num_units"], expected)


def test_postprocess_blends_the_head_as_the_embedded_tagger(headed: TaggerArtifact, tmp_path: Path) -> None:
    repo = write_triton_repository(headed, tmp_path / "triton",
                                   sentence_graph=lambda: _fake_sentence_graph(tmp_path / "fake.onnx"))
    folder = repo / "tagger_postprocess" / "1"
    spec = json.loads((folder / "decoding.json").read_text())
    rng = np.random.default_rng(0)
    hidden = rng.normal(size=(len(TEXTS), 256, HIDDEN)).astype(np.float32)
    mask = np.zeros((len(TEXTS), 256), dtype=np.int64)
    for r, n in enumerate((9, 12, 256, 1)):
        mask[r, :n] = 1
    # Mean over the real tokens, then unit length: computed here apart from the function under test.
    vectors = np.stack([hidden[r, : int(m.sum())].mean(axis=0) for r, m in enumerate(mask)])
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    tagger = OnnxTagger(headed.directory)
    scores = postprocess_model.served_scores(tagger.network_scores(TEXTS), postprocess_model.Head.load(
        folder / spec["vector_head"]), hidden, mask)
    np.testing.assert_allclose(scores, tagger.scores(TEXTS, vectors), atol=1e-6)
    outputs = postprocess_model.outputs_for(scores, spec["unit_ids"], np.asarray(spec["thresholds"], np.float32),
                                            spec["non_scientific_index"], spec["max_units"])
    _assert_same_units(*outputs, tagger.tag(TEXTS, vectors))


def test_head_without_a_sentence_graph_is_refused(headed: TaggerArtifact, tmp_path: Path) -> None:
    with pytest.raises(PreconditionFailed, match="sentence graph"):
        write_triton_repository(headed, tmp_path / "triton")
    with pytest.raises(PreconditionFailed, match="sentence graph"):
        TritonModelRepository().write(headed, tmp_path / "triton", 64)
    assert not (tmp_path / "triton").exists()
    graph = _fake_sentence_graph(tmp_path / "fake.onnx")
    repo = TritonModelRepository(sentence_graph=lambda: graph).write(headed, tmp_path / "triton", 64)
    assert (repo / "tagger_sentence" / "1" / "model.onnx").read_bytes() == graph.read_bytes()


@pytest.mark.parametrize(("embedder", "dimension", "problem"), [
    ("hashing-64", HIDDEN, "encodes with all-MiniLM-L6-v2 only"),
    ("all-MiniLM-L6-v2", 64, "64-d vectors"),
])
def test_a_head_the_sentence_graph_cannot_feed_is_refused(tiny_trained, tmp_path: Path, embedder: str,  # type: ignore[no-untyped-def]
                                                          dimension: int, problem: str) -> None:
    base = tiny_trained[1].artifact
    artifact = _with_head(base, tmp_path / "store", _head(len(base.unit_ids), embedder, dimension))
    graph = _fake_sentence_graph(tmp_path / "fake.onnx")
    with pytest.raises(PreconditionFailed, match=problem):
        write_triton_repository(artifact, tmp_path / "triton", sentence_graph=lambda: graph)
