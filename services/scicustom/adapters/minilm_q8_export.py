"""The packaged all-MiniLM-L6-v2 as a fused, dynamically int8-quantised ONNX graph, derived once into
the model cache from the fp32 weights.

Three steps, each deterministic:
  1. torch export with the attention written out in the classic BERT form (additive mask, scores
     divided by sqrt(head size)), the form onnxruntime.transformers recognises: the transformers 5
     attention that minilm_onnx_export.py exports fuses only LayerNorm and GELU.
  2. optimize_model(model_type="bert"): EmbedLayerNormalization, Attention, SkipLayerNormalization
     and BiasGelu (FUSED_FILE, fp32: the torch vectors to float rounding).
  3. quantize_dynamic (GRAPH_FILE): int8 weights per output channel; activations quantised to uint8
     at run time with one scale per tensor (QAttention, MatMulInteger: VNNI kernels).
The folder, and so the embedder's name, carries a digest of the tool versions and options that made
it (manifest.json spells them out): a different derivation never hides behind the same name.
"""

from __future__ import annotations

import hashlib
import json
from importlib.metadata import version
from pathlib import Path
from typing import Any

from scicustom.adapters.minilm_onnx_export import INPUTS, OPSET, OUTPUT, build_once
from scicustom.adapters.packaged_models import MINILM_NAME, MINILM_PACKAGE, load_minilm
from scicustom.core.errors import PreconditionFailed

Q8_VERSION = "onnx-q8-v1"  # bump when the steps change in a way the options below do not show
FUSED_FILE = "model-fused.onnx"
GRAPH_FILE = "model-q8.onnx"
MANIFEST_FILE = "manifest.json"
LAYERS, HEADS, HIDDEN = 6, 12, 384
OPTIMIZER = {"model_type": "bert", "num_heads": HEADS, "hidden_size": HIDDEN, "opt_level": 0}
# The FFN output projections stay fp32: their inputs are GELU outputs, whose range one uint8 scale
# per tensor covers poorly. Quantised too, the minimum cosine to fp32 on 200 corpus items was 0.986;
# kept, 0.9935, at 0.9x the all-int8 rate. The embedding tables stay fp32 as well (a gather: no time
# to save).
QUANTIZER = {"weight_type": "QInt8", "per_channel": True, "reduce_range": False,
             "op_types_to_quantize": ["MatMul", "Attention"], "exclude": "MatMul fed by BiasGelu"}


def derivation() -> dict[str, Any]:
    tools = ("torch", "transformers", "onnx", "onnxruntime", MINILM_PACKAGE)
    return {"version": Q8_VERSION, "tools": {name: version(name) for name in tools}, "opset": OPSET,
            "optimizer": OPTIMIZER, "quantizer": QUANTIZER}


def minilm_q8_name() -> str:
    digest = hashlib.sha256(json.dumps(derivation(), sort_keys=True).encode()).hexdigest()
    return f"{MINILM_NAME}-{Q8_VERSION}-{digest[:12]}"


def minilm_q8_dir(cache_dir: Path) -> Path:
    return cache_dir / minilm_q8_name()


def ensure_minilm_q8(cache_dir: Path) -> Path:
    """The quantised graph's path; derived on the first call (8-16 s on 2 cores), then reused."""
    folder = minilm_q8_dir(cache_dir)
    if not (folder / GRAPH_FILE).exists():
        build_once(folder, _derive)
    return folder / GRAPH_FILE


def _classic_bert(bert: Any) -> Any:
    """BertModel's encoder over the packaged modules (none of them changed: the torch embedder
    shares them), with self-attention in the form the fusion matches."""
    import torch

    class ClassicBert(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.bert = bert

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            hidden = self.bert.embeddings(input_ids=input_ids, token_type_ids=token_type_ids)
            additive = (1.0 - attention_mask[:, None, None, :].to(hidden.dtype)) * -10000.0
            for layer in self.bert.encoder.layer:
                attended = layer.attention.output(self._attend(layer.attention.self, hidden, additive), hidden)
                hidden = layer.output(layer.intermediate(attended), attended)
            return hidden

        @staticmethod
        def _attend(attention: Any, hidden: Any, additive: Any) -> Any:
            def heads(x: Any) -> Any:
                return x.view((*x.size()[:-1], HEADS, HIDDEN // HEADS)).permute(0, 2, 1, 3)

            query, key, value = (heads(attention.query(hidden)), heads(attention.key(hidden)),
                                 heads(attention.value(hidden)))
            scores = torch.matmul(query, key.transpose(-1, -2)) / (HIDDEN // HEADS) ** 0.5 + additive
            context = torch.matmul(torch.softmax(scores, dim=-1), value).permute(0, 2, 1, 3).contiguous()
            return context.view((*context.size()[:-2], HIDDEN))

    return ClassicBert().eval()


def _derive(folder: Path) -> None:
    import onnx
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from onnxruntime.transformers.optimizer import optimize_model

    exported = folder / "exported.onnx"
    example = (torch.ones(2, 8, dtype=torch.long), torch.ones(2, 8, dtype=torch.long),
               torch.zeros(2, 8, dtype=torch.long))
    axes = {name: {0: "batch", 1: "sequence"} for name in (*INPUTS, OUTPUT)}
    torch.onnx.export(_classic_bert(load_minilm()[0].auto_model), example, str(exported),
                      input_names=list(INPUTS), output_names=[OUTPUT], dynamic_axes=axes,
                      opset_version=OPSET, dynamo=False)
    # opt_level 0: the Python fusions only; ONNX Runtime's own (CPU-specific) ones run at load.
    fused = optimize_model(str(exported), use_gpu=False, **OPTIMIZER)
    stats = fused.get_fused_operator_statistics()
    expected = {"EmbedLayerNormalization": 1, "Attention": LAYERS, "SkipLayerNormalization": 2 * LAYERS,
                "BiasGelu": LAYERS}
    found = {op: stats.get(op, 0) for op in expected}
    if found != expected:
        raise PreconditionFailed(f"onnxruntime {version('onnxruntime')} fused {found} in the MiniLM export, "
                                 f"not {expected}; pin the versions in requirements.lock or update "
                                 "minilm_q8_export.py")
    fused.save_model_to_file(str(folder / FUSED_FILE))
    exported.unlink()
    graph = onnx.load(str(folder / FUSED_FILE))
    gelu = {out for node in graph.graph.node if node.op_type == "BiasGelu" for out in node.output}
    keep_fp32 = [node.name for node in graph.graph.node if node.op_type == "MatMul" and gelu & set(node.input)]
    quantize_dynamic(str(folder / FUSED_FILE), str(folder / GRAPH_FILE), weight_type=QuantType.QInt8,
                     per_channel=True, reduce_range=False, op_types_to_quantize=["MatMul", "Attention"],
                     nodes_to_exclude=keep_fp32,
                     # Shape inference cannot type the fused contrib ops' outputs; all are float.
                     extra_options={"DefaultTensorType": onnx.TensorProto.FLOAT})
    manifest = {**derivation(), "fp32_matmuls": keep_fp32,
                "sha256": {name: hashlib.sha256((folder / name).read_bytes()).hexdigest()
                           for name in (FUSED_FILE, GRAPH_FILE)}}
    (folder / MANIFEST_FILE).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")
