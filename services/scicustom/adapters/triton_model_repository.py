"""A Triton model repository for the GPU deployment of the tagger (an ensemble of three models).

  tagger_tokenizer   Python backend: TEXT -> input_ids, attention_mask (fixed width, batchable)
  tagger_onnx        onnxruntime on the GPU, dynamic batching: ids, mask -> per-unit probabilities
  tagger_postprocess Python backend: probabilities -> unit_ids, scores, num_units (thresholds, <= 8)
  tagger             the ensemble: TEXT in, the same outputs as the KServe `tagger` model
Configs are built as ModelConfig protobufs (tritonclient's schema) and written in text format. The
two Python-backend models are files of the tagger's serving runtime (scicustom/tagger/triton/),
copied into the repository as package data: they run inside Triton, never in this process.
"""

from __future__ import annotations

import json
import shutil
from importlib import resources
from pathlib import Path

from google.protobuf import text_format
from tritonclient.grpc import model_config_pb2 as mc

from scicustom.core.tagger_training.artifact import TaggerArtifact

BACKEND_MODELS = "scicustom.tagger.triton"  # the package holding the Python-backend model files

ENSEMBLE = "tagger"
TOKENIZER = "tagger_tokenizer"
ONNX = "tagger_onnx"
POSTPROCESS = "tagger_postprocess"
INT64, FP32, BYTES, INT32 = mc.TYPE_INT64, mc.TYPE_FP32, mc.TYPE_STRING, mc.TYPE_INT32


def _tensor(kind: type, name: str, dtype: int, dims: list[int], reshape: list[int] | None = None) -> object:
    tensor = kind(name=name, data_type=dtype, dims=dims)
    if reshape is not None:
        tensor.reshape.shape.extend(reshape)
    return tensor


def tokenizer_config(max_batch: int, max_tokens: int) -> mc.ModelConfig:
    config = mc.ModelConfig(name=TOKENIZER, backend="python", max_batch_size=max_batch)
    config.input.append(_tensor(mc.ModelInput, "TEXT", BYTES, [1]))
    config.output.extend([_tensor(mc.ModelOutput, "input_ids", INT64, [max_tokens]),
                          _tensor(mc.ModelOutput, "attention_mask", INT64, [max_tokens])])
    config.parameters["max_tokens"].string_value = str(max_tokens)
    config.instance_group.append(mc.ModelInstanceGroup(kind=mc.ModelInstanceGroup.KIND_CPU, count=2))
    return config


def onnx_config(max_batch: int, max_tokens: int, units: int) -> mc.ModelConfig:
    config = mc.ModelConfig(name=ONNX, platform="onnxruntime_onnx", max_batch_size=max_batch)
    config.input.extend([_tensor(mc.ModelInput, "input_ids", INT64, [max_tokens]),
                         _tensor(mc.ModelInput, "attention_mask", INT64, [max_tokens])])
    config.output.append(_tensor(mc.ModelOutput, "scores", FP32, [units]))
    config.dynamic_batching.preferred_batch_size.extend([b for b in (32, 64, 128) if b <= max_batch])
    config.dynamic_batching.max_queue_delay_microseconds = 2000
    config.instance_group.append(mc.ModelInstanceGroup(kind=mc.ModelInstanceGroup.KIND_GPU, count=1))
    return config


def postprocess_config(max_batch: int, units: int, max_units: int) -> mc.ModelConfig:
    config = mc.ModelConfig(name=POSTPROCESS, backend="python", max_batch_size=max_batch)
    config.input.append(_tensor(mc.ModelInput, "probabilities", FP32, [units]))
    config.output.extend([_tensor(mc.ModelOutput, "unit_ids", BYTES, [max_units]),
                          _tensor(mc.ModelOutput, "scores", FP32, [max_units]),
                          _tensor(mc.ModelOutput, "num_units", INT32, [1], reshape=[])])
    config.instance_group.append(mc.ModelInstanceGroup(kind=mc.ModelInstanceGroup.KIND_CPU, count=2))
    return config


def ensemble_config(max_batch: int, max_units: int) -> mc.ModelConfig:
    config = mc.ModelConfig(name=ENSEMBLE, platform="ensemble", max_batch_size=max_batch)
    config.input.append(_tensor(mc.ModelInput, "text", BYTES, [1]))
    config.output.extend([_tensor(mc.ModelOutput, "unit_ids", BYTES, [max_units]),
                          _tensor(mc.ModelOutput, "scores", FP32, [max_units]),
                          _tensor(mc.ModelOutput, "num_units", INT32, [1], reshape=[])])
    steps = config.ensemble_scheduling.step
    step = steps.add(model_name=TOKENIZER, model_version=-1)
    step.input_map["TEXT"] = "text"
    step.output_map["input_ids"] = "ids"
    step.output_map["attention_mask"] = "mask"
    step = steps.add(model_name=ONNX, model_version=-1)
    step.input_map["input_ids"] = "ids"
    step.input_map["attention_mask"] = "mask"
    step.output_map["scores"] = "probabilities"
    step = steps.add(model_name=POSTPROCESS, model_version=-1)
    step.input_map["probabilities"] = "probabilities"
    for name in ("unit_ids", "scores", "num_units"):
        step.output_map[name] = name
    return config


def _write_config(folder: Path, config: mc.ModelConfig) -> None:
    (folder / "1").mkdir(parents=True, exist_ok=True)
    (folder / "config.pbtxt").write_text(text_format.MessageToString(config), encoding="utf-8")


def _copy_backend_model(name: str, target: Path) -> None:
    target.write_bytes(resources.files(BACKEND_MODELS).joinpath(name).read_bytes())


def write_triton_repository(artifact: TaggerArtifact, out: Path, max_batch: int = 256) -> Path:
    """Writes the repository to `out` (replacing it) through a temporary sibling folder."""
    units = len(artifact.unit_ids)
    tmp = out.with_name(f".{out.name}.partial")
    shutil.rmtree(tmp, ignore_errors=True)
    _write_config(tmp / TOKENIZER, tokenizer_config(max_batch, artifact.max_tokens))
    _copy_backend_model("tokenizer_model.py", tmp / TOKENIZER / "1" / "model.py")
    shutil.copyfile(artifact.tokenizer_path, tmp / TOKENIZER / "1" / "tokenizer.json")
    _write_config(tmp / ONNX, onnx_config(max_batch, artifact.max_tokens, units))
    shutil.copyfile(artifact.model_path, tmp / ONNX / "1" / "model.onnx")
    _write_config(tmp / POSTPROCESS, postprocess_config(max_batch, units, artifact.max_units))
    _copy_backend_model("postprocess_model.py", tmp / POSTPROCESS / "1" / "model.py")
    (tmp / POSTPROCESS / "1" / "decoding.json").write_text(json.dumps({
        "unit_ids": artifact.unit_ids, "thresholds": [float(t) for t in artifact.thresholds],
        "non_scientific_index": artifact.non_scientific_index, "max_units": artifact.max_units,
        "version": artifact.version}), encoding="utf-8")
    _write_config(tmp / ENSEMBLE, ensemble_config(max_batch, artifact.max_units))
    (tmp / "README.md").write_text(
        f"Triton model repository for tagger {artifact.version}. Serve with "
        "`tritonserver --model-repository=<this folder>`; the Python backend needs the `tokenizers` "
        "and `numpy` packages. Send BYTES tensor `text` [batch, 1] to model `tagger`.\n", encoding="utf-8")
    if out.exists():
        shutil.rmtree(out)
    tmp.rename(out)
    return out


class TritonModelRepository:
    """The TaggerModelRepository port for Triton (see write_triton_repository)."""

    def write(self, artifact: TaggerArtifact, out: Path, max_batch: int) -> Path:
        return write_triton_repository(artifact, out, max_batch=max_batch)
