"""A Triton model repository for the GPU deployment of the tagger (an ensemble of three or four models).

  tagger_tokenizer   Python backend: TEXT -> input_ids, attention_mask (fixed width, batchable)
  tagger_onnx        onnxruntime on the GPU, dynamic batching: ids, mask -> per-unit probabilities
  tagger_sentence    only for a version with a sentence-vector head: all-MiniLM-L6-v2 (the fp32 ONNX export
                     of minilm_onnx_export.py) on the GPU, dynamic batching: sentence_ids, sentence_mask,
                     sentence_type_ids (MiniLM's tokenizer at its max_seq_length, emitted by the tokenizer
                     step too) -> last_hidden_state [tokens, 384]
  tagger_postprocess Python backend: probabilities (+ the hidden state and sentence mask, pooled and
                     normalised into the head's vectors and blended in) -> unit_ids, scores, num_units
                     (thresholds, <= 8)
  tagger             the ensemble: TEXT in, the same outputs as the KServe `tagger` model
The served scores are those of the embedded tagger (OnnxTagger): the thresholds are calibrated on the
blend, so a version with a head is never written without its sentence encoder. Configs are built as
ModelConfig protobufs (tritonclient's schema) and written in text format. The two Python-backend models
are files of the tagger's serving runtime (scicustom/tagger/triton/), copied into the repository as
package data: they run inside Triton, never in this process.
"""

from __future__ import annotations

import json
import logging
import shutil
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from google.protobuf import text_format
from tritonclient.grpc import model_config_pb2 as mc

from scicustom.core.errors import PreconditionFailed
from scicustom.core.tagger_training.artifact import TaggerArtifact
from scicustom.core.tagger_training.vector_head import VectorHead

log = logging.getLogger(__name__)

BACKEND_MODELS = "scicustom.tagger.triton"  # the package holding the Python-backend model files

ENSEMBLE = "tagger"
TOKENIZER = "tagger_tokenizer"
ONNX = "tagger_onnx"
SENTENCE = "tagger_sentence"
POSTPROCESS = "tagger_postprocess"
INT64, FP32, BYTES, INT32 = mc.TYPE_INT64, mc.TYPE_FP32, mc.TYPE_STRING, mc.TYPE_INT32
HEAD_FILE = "vector_head.npz"  # beside the postprocess model; named in its decoding.json
SENTENCE_TOKENIZER = "sentence_tokenizer.json"  # beside the tokenizer model, when not its own tokenizer.json
# The tokenizer step's outputs for the sentence encoder, in the order of the MiniLM graph's inputs.
SENTENCE_INPUTS = (("sentence_ids", "input_ids"), ("sentence_mask", "attention_mask"),
                   ("sentence_type_ids", "token_type_ids"))


@dataclass(frozen=True)
class SentenceEncoder:
    """The MiniLM graph the ensemble runs for the head's vectors, and the tokens it reads."""

    graph: Path      # input_ids, attention_mask, token_type_ids -> last_hidden_state
    tokenizer: Path  # MiniLM's tokenizer.json
    width: int       # MiniLM's max_seq_length: where the platform's embedder truncates
    hidden: int      # the last hidden state's size: the head's vector dimension


def minilm_sentence_encoder(graph: Path) -> SentenceEncoder:
    """The packaged MiniLM's tokenizer and sequence limit (as minilm_onnx_embedder reads them) for `graph`."""
    import onnx

    from scicustom.adapters.packaged_models import minilm_path

    model_dir = minilm_path()
    width = int(json.loads((model_dir / "sentence_bert_config.json").read_text())["max_seq_length"])
    output = onnx.load(str(graph), load_external_data=False).graph.output[0]
    hidden = output.type.tensor_type.shape.dim[-1].dim_value
    return SentenceEncoder(graph, model_dir / "tokenizer.json", width, int(hidden))


def _tensor(kind: type, name: str, dtype: int, dims: list[int], reshape: list[int] | None = None) -> object:
    tensor = kind(name=name, data_type=dtype, dims=dims)
    if reshape is not None:
        tensor.reshape.shape.extend(reshape)
    return tensor


def tokenizer_config(max_batch: int, max_tokens: int, sentence_tokens: int | None = None,
                     sentence_tokenizer: str = SENTENCE_TOKENIZER) -> mc.ModelConfig:
    config = mc.ModelConfig(name=TOKENIZER, backend="python", max_batch_size=max_batch)
    config.input.append(_tensor(mc.ModelInput, "TEXT", BYTES, [1]))
    config.output.extend([_tensor(mc.ModelOutput, "input_ids", INT64, [max_tokens]),
                          _tensor(mc.ModelOutput, "attention_mask", INT64, [max_tokens])])
    config.parameters["max_tokens"].string_value = str(max_tokens)
    if sentence_tokens is not None:
        config.output.extend(_tensor(mc.ModelOutput, name, INT64, [sentence_tokens]) for name, _ in SENTENCE_INPUTS)
        config.parameters["sentence_tokens"].string_value = str(sentence_tokens)
        config.parameters["sentence_tokenizer"].string_value = sentence_tokenizer
    config.instance_group.append(mc.ModelInstanceGroup(kind=mc.ModelInstanceGroup.KIND_CPU, count=2))
    return config


def _on_gpu_batched(config: mc.ModelConfig, max_batch: int) -> mc.ModelConfig:
    config.dynamic_batching.preferred_batch_size.extend([b for b in (32, 64, 128) if b <= max_batch])
    config.dynamic_batching.max_queue_delay_microseconds = 2000
    config.instance_group.append(mc.ModelInstanceGroup(kind=mc.ModelInstanceGroup.KIND_GPU, count=1))
    return config


def onnx_config(max_batch: int, max_tokens: int, units: int) -> mc.ModelConfig:
    config = mc.ModelConfig(name=ONNX, platform="onnxruntime_onnx", max_batch_size=max_batch)
    config.input.extend([_tensor(mc.ModelInput, "input_ids", INT64, [max_tokens]),
                         _tensor(mc.ModelInput, "attention_mask", INT64, [max_tokens])])
    config.output.append(_tensor(mc.ModelOutput, "scores", FP32, [units]))
    return _on_gpu_batched(config, max_batch)


def sentence_config(max_batch: int, width: int, hidden: int) -> mc.ModelConfig:
    config = mc.ModelConfig(name=SENTENCE, platform="onnxruntime_onnx", max_batch_size=max_batch)
    config.input.extend(_tensor(mc.ModelInput, name, INT64, [width]) for _, name in SENTENCE_INPUTS)
    config.output.append(_tensor(mc.ModelOutput, "last_hidden_state", FP32, [width, hidden]))
    return _on_gpu_batched(config, max_batch)


def postprocess_config(max_batch: int, units: int, max_units: int,
                       sentence: SentenceEncoder | None = None) -> mc.ModelConfig:
    config = mc.ModelConfig(name=POSTPROCESS, backend="python", max_batch_size=max_batch)
    config.input.append(_tensor(mc.ModelInput, "probabilities", FP32, [units]))
    if sentence is not None:
        config.input.extend([_tensor(mc.ModelInput, "last_hidden_state", FP32, [sentence.width, sentence.hidden]),
                             _tensor(mc.ModelInput, "sentence_mask", INT64, [sentence.width])])
    config.output.extend([_tensor(mc.ModelOutput, "unit_ids", BYTES, [max_units]),
                          _tensor(mc.ModelOutput, "scores", FP32, [max_units]),
                          _tensor(mc.ModelOutput, "num_units", INT32, [1], reshape=[])])
    config.instance_group.append(mc.ModelInstanceGroup(kind=mc.ModelInstanceGroup.KIND_CPU, count=2))
    return config


def ensemble_config(max_batch: int, max_units: int, sentence: bool = False) -> mc.ModelConfig:
    config = mc.ModelConfig(name=ENSEMBLE, platform="ensemble", max_batch_size=max_batch)
    config.input.append(_tensor(mc.ModelInput, "text", BYTES, [1]))
    config.output.extend([_tensor(mc.ModelOutput, "unit_ids", BYTES, [max_units]),
                          _tensor(mc.ModelOutput, "scores", FP32, [max_units]),
                          _tensor(mc.ModelOutput, "num_units", INT32, [1], reshape=[])])
    steps = config.ensemble_scheduling.step
    tokenizer = steps.add(model_name=TOKENIZER, model_version=-1)
    tokenizer.input_map["TEXT"] = "text"
    tokenizer.output_map["input_ids"] = "ids"
    tokenizer.output_map["attention_mask"] = "mask"
    network = steps.add(model_name=ONNX, model_version=-1)
    network.input_map["input_ids"] = "ids"
    network.input_map["attention_mask"] = "mask"
    network.output_map["scores"] = "probabilities"
    if sentence:  # the tokenizer's second set of ids feeds MiniLM; its hidden state goes to the postprocess
        encoder = steps.add(model_name=SENTENCE, model_version=-1)
        for ensemble_name, graph_input in SENTENCE_INPUTS:
            tokenizer.output_map[ensemble_name] = ensemble_name
            encoder.input_map[graph_input] = ensemble_name
        encoder.output_map["last_hidden_state"] = "hidden"
    post = steps.add(model_name=POSTPROCESS, model_version=-1)
    post.input_map["probabilities"] = "probabilities"
    if sentence:
        post.input_map["last_hidden_state"] = "hidden"
        post.input_map["sentence_mask"] = "sentence_mask"
    for name in ("unit_ids", "scores", "num_units"):
        post.output_map[name] = name
    return config


def _write_config(folder: Path, config: mc.ModelConfig) -> None:
    (folder / "1").mkdir(parents=True, exist_ok=True)
    (folder / "config.pbtxt").write_text(text_format.MessageToString(config), encoding="utf-8")


def _copy_backend_model(name: str, target: Path) -> None:
    target.write_bytes(resources.files(BACKEND_MODELS).joinpath(name).read_bytes())


def _sentence_encoder(artifact: TaggerArtifact,
                      sentence_graph: Callable[[], Path] | None) -> SentenceEncoder | None:
    """The encoder a version's head needs (None without a head), or PreconditionFailed: a repository
    that served network scores against thresholds calibrated on the blend would tag wrongly."""
    head = artifact.head
    if head is None:
        return None
    if sentence_graph is None:
        raise PreconditionFailed(f"tagger {artifact.version} blends a sentence-vector head ({head.embedder}): "
                                 "the Triton repository needs the MiniLM sentence graph, and none was provided")
    _check_head_embedder(artifact.version, head)
    encoder = minilm_sentence_encoder(sentence_graph())
    if encoder.hidden != head.dimension:
        raise PreconditionFailed(f"tagger {artifact.version}'s head reads {head.dimension}-d vectors; the "
                                 f"sentence graph {encoder.graph} gives {encoder.hidden}-d ones")
    return encoder


def _check_head_embedder(version: str, head: VectorHead) -> None:
    from scicustom.adapters.minilm_onnx_export import minilm_onnx_name
    from scicustom.adapters.packaged_models import MINILM_NAME

    if not head.embedder.startswith(MINILM_NAME):
        raise PreconditionFailed(f"tagger {version}'s head reads {head.embedder} vectors; the Triton ensemble "
                                 f"encodes with {MINILM_NAME} only")
    if head.embedder not in (MINILM_NAME, minilm_onnx_name()):
        # The int8 graphs give vectors within float noise of fp32's, not equal: scores may move slightly.
        log.warning("tagger %s's head was fitted on %s vectors; the Triton ensemble serves the fp32 %s graph",
                    version, head.embedder, minilm_onnx_name())


def _write_tokenizer(tmp: Path, artifact: TaggerArtifact, max_batch: int, sentence: SentenceEncoder | None) -> None:
    folder = tmp / TOKENIZER / "1"
    tokenizer_file = SENTENCE_TOKENIZER
    if sentence is not None and sentence.tokenizer.read_bytes() == artifact.tokenizer_path.read_bytes():
        tokenizer_file = "tokenizer.json"  # the tagger's own vocabulary: one file, reused when widths agree
    _write_config(tmp / TOKENIZER, tokenizer_config(max_batch, artifact.max_tokens,
                                                    sentence.width if sentence else None, tokenizer_file))
    _copy_backend_model("tokenizer_model.py", folder / "model.py")
    shutil.copyfile(artifact.tokenizer_path, folder / "tokenizer.json")
    if sentence is not None and tokenizer_file == SENTENCE_TOKENIZER:
        shutil.copyfile(sentence.tokenizer, folder / SENTENCE_TOKENIZER)


def _write_postprocess(tmp: Path, artifact: TaggerArtifact, max_batch: int, sentence: SentenceEncoder | None) -> None:
    folder = tmp / POSTPROCESS / "1"
    units = len(artifact.unit_ids)
    _write_config(tmp / POSTPROCESS, postprocess_config(max_batch, units, artifact.max_units, sentence))
    _copy_backend_model("postprocess_model.py", folder / "model.py")
    spec = {"unit_ids": artifact.unit_ids, "thresholds": [float(t) for t in artifact.thresholds],
            "non_scientific_index": artifact.non_scientific_index, "max_units": artifact.max_units,
            "version": artifact.version}
    if artifact.head is not None:
        # Written from the loaded head, not copied: the artifact may carry one its folder has no file of.
        (folder / HEAD_FILE).write_bytes(artifact.head.to_bytes())
        spec["vector_head"] = HEAD_FILE
    (folder / "decoding.json").write_text(json.dumps(spec), encoding="utf-8")


def _readme(artifact: TaggerArtifact, sentence: SentenceEncoder | None) -> str:
    text = (f"Triton model repository for tagger {artifact.version}. Serve with "
            "`tritonserver --model-repository=<this folder>`; the Python backend needs the `tokenizers` "
            "and `numpy` packages. Send BYTES tensor `text` [batch, 1] to model `tagger`.\n")
    head = artifact.head
    if sentence is None or head is None:
        return text
    return text + (
        f"\nThis version blends a sentence-vector head (fitted on {head.embedder} vectors, blend {head.blend}) "
        f"into the network's scores, and the ensemble computes the vectors itself: `tagger_tokenizer` also "
        f"emits MiniLM's inputs ({sentence.width} tokens), `tagger_sentence` runs all-MiniLM-L6-v2 (fp32 ONNX) "
        "on the GPU, and `tagger_postprocess` mean-pools and L2-normalises its last hidden state, applies the "
        f"head ({HEAD_FILE}) and blends it into the probabilities before the calibrated thresholds.\n")


def write_triton_repository(artifact: TaggerArtifact, out: Path, max_batch: int = 256,
                            sentence_graph: Callable[[], Path] | None = None) -> Path:
    """Writes the repository to `out` (replacing it) through a temporary sibling folder. `sentence_graph`
    gives the MiniLM ONNX graph's path; it is called only for a version with a sentence-vector head."""
    sentence = _sentence_encoder(artifact, sentence_graph)
    units = len(artifact.unit_ids)
    tmp = out.with_name(f".{out.name}.partial")
    shutil.rmtree(tmp, ignore_errors=True)
    _write_tokenizer(tmp, artifact, max_batch, sentence)
    _write_config(tmp / ONNX, onnx_config(max_batch, artifact.max_tokens, units))
    shutil.copyfile(artifact.model_path, tmp / ONNX / "1" / "model.onnx")
    if sentence is not None:
        _write_config(tmp / SENTENCE, sentence_config(max_batch, sentence.width, sentence.hidden))
        shutil.copyfile(sentence.graph, tmp / SENTENCE / "1" / "model.onnx")
    _write_postprocess(tmp, artifact, max_batch, sentence)
    _write_config(tmp / ENSEMBLE, ensemble_config(max_batch, artifact.max_units, sentence is not None))
    (tmp / "README.md").write_text(_readme(artifact, sentence), encoding="utf-8")
    if out.exists():
        shutil.rmtree(out)
    tmp.rename(out)
    return out


class TritonModelRepository:
    """The TaggerModelRepository port for Triton (see write_triton_repository). `sentence_graph` gives the
    MiniLM graph's path for versions with a sentence-vector head; it is called only when one needs it."""

    def __init__(self, sentence_graph: Callable[[], Path] | None = None) -> None:
        self._sentence_graph = sentence_graph

    def write(self, artifact: TaggerArtifact, out: Path, max_batch: int) -> Path:
        return write_triton_repository(artifact, out, max_batch=max_batch, sentence_graph=self._sentence_graph)
