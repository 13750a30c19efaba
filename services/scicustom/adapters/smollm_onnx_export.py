"""Export SmolLM2-135M's answer-log-probability graph to ONNX, once, into the model cache.

The graph takes right-padded token ids, their mask, and per row the positions whose next-token
predictions score the answer and the answer's tokens; it returns log P(answer token) per position.
Only those positions go through the 49k-vocabulary head, as in the torch adapter. The weights
are the float32 de-quantisation of the packaged GGUF (load_smollm), so the values are the torch
model's up to float rounding (measured in benchmarks/bench_cold_build.py). int8 dynamic
quantisation was tried and rejected: it moved per-item perplexity by up to 200x.

The exported graph is then optimised once by ONNX Runtime (the portable "extended" level) and
saved with its weights in a separate file, so a session starts without optimising (seconds on 2
cores) and maps the weights instead of copying them (processes share the pages).
"""

from __future__ import annotations

import json
import shutil
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

from scicustom.adapters.packaged_models import SMOLLM_NAME, load_smollm

ONNX_VERSION = "onnx-fp32-v1"  # bump when the graph or its export changes: cached scores are keyed by it
ONNX_DIR = f"{SMOLLM_NAME}.{ONNX_VERSION}"
GRAPH_FILE = "answer_logprobs.onnx"
WEIGHTS_FILE = "answer_logprobs.onnx.data"
_RAW_FILE = "exported.onnx"  # torch's export, before the optimisation pass; deleted after it
TOKENIZER_FILE = "tokenizer.json"
META_FILE = "meta.json"
INPUTS = ("input_ids", "attention_mask", "positions", "targets")
OUTPUT = "logprobs"
OPSET = 17


def onnx_dir(cache_dir: Path) -> Path:
    return cache_dir / ONNX_DIR


def _graph(model: Any) -> Any:
    import torch

    class AnswerLogprobs(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.lm = model

        def forward(self, input_ids: Any, attention_mask: Any, positions: Any, targets: Any) -> Any:
            hidden = self.lm.model(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
            picked = hidden.gather(1, positions.unsqueeze(-1).expand(-1, -1, hidden.shape[-1]))
            logprobs = torch.log_softmax(self.lm.lm_head(picked).float(), dim=-1)
            return logprobs.gather(-1, targets.unsqueeze(-1)).squeeze(-1)

    return AnswerLogprobs().eval()


def _optimise(raw: Path, out: Path) -> None:
    import onnxruntime as ort

    options = ort.SessionOptions()
    # "extended" fusions run on any CPU; the "all" level adds layouts specific to this machine's CPU.
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
    options.optimized_model_filepath = str(out)
    options.add_session_config_entry("session.optimized_model_external_initializers_file_name", WEIGHTS_FILE)
    options.add_session_config_entry("session.optimized_model_external_initializers_min_size_in_bytes", "1024")
    options.log_severity_level = 3
    ort.InferenceSession(str(raw), options, providers=["CPUExecutionProvider"])


def ensure_smollm_onnx(cache_dir: Path, log: Callable[[str], None] | None = None) -> Path:
    """The exported folder (graph, tokenizer, meta); exported on first call (~30 s), then reused."""
    target = onnx_dir(cache_dir)
    if (target / META_FILE).exists():
        return target
    import torch

    if log:
        log(f"exporting {SMOLLM_NAME} to ONNX ({ONNX_VERSION}) into {target} (once, about a minute)")
    tokenizer, model = load_smollm(cache_dir)
    # Eager attention traces to plain ops whose shapes stay dynamic (batch, tokens, answer length).
    model.config._attn_implementation = "eager"
    tmp = target.with_name(target.name + ".partial")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    ids = torch.ones((2, 8), dtype=torch.int64)
    example = (ids, torch.ones_like(ids), torch.tensor([[3, 4], [5, 6]]), torch.tensor([[1, 2], [3, 4]]))
    axes = {"input_ids": {0: "batch", 1: "tokens"}, "attention_mask": {0: "batch", 1: "tokens"},
            "positions": {0: "batch", 1: "answer"}, "targets": {0: "batch", 1: "answer"},
            OUTPUT: {0: "batch", 1: "answer"}}
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        torch.onnx.export(_graph(model), example, str(tmp / _RAW_FILE), input_names=list(INPUTS),
                          output_names=[OUTPUT], dynamic_axes=axes, opset_version=OPSET, dynamo=False)
    _optimise(tmp / _RAW_FILE, tmp / GRAPH_FILE)
    (tmp / _RAW_FILE).unlink()
    shutil.copy(cache_dir / SMOLLM_NAME / TOKENIZER_FILE, tmp / TOKENIZER_FILE)
    meta = {"model": SMOLLM_NAME, "runtime": ONNX_VERSION, "eos_token_id": int(tokenizer.eos_token_id)}
    (tmp / META_FILE).write_text(json.dumps(meta, indent=1, sort_keys=True))
    tmp.rename(target)  # meta.json inside marks a complete export
    if log:
        log(f"{SMOLLM_NAME} ONNX graph ready in {target}")
    return target
