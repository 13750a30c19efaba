"""The packaged all-MiniLM-L6-v2 (torch, fp32) exported to an ONNX graph once, into the model cache.

The graph maps (input_ids, attention_mask, token_type_ids) to the last hidden state; pooling and
normalisation stay in minilm_onnx_embedder.py. The folder name carries EXPORT_VERSION, and so does
the embedder's name: vectors stored under one export are never read as another's.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

from scicustom.adapters.packaged_models import MINILM_NAME, load_minilm

EXPORT_VERSION = "onnx-fp32-v1"  # bump when the graph or its export changes
GRAPH_FILE = "model.onnx"
INPUTS = ("input_ids", "attention_mask", "token_type_ids")
OUTPUT = "last_hidden_state"
OPSET = 17


def minilm_onnx_name() -> str:
    return f"{MINILM_NAME}-{EXPORT_VERSION}"


def _graph(bert: Any) -> Any:
    import torch

    class LastHiddenState(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.bert = bert

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            return self.bert(input_ids=input_ids, attention_mask=attention_mask,
                             token_type_ids=token_type_ids).last_hidden_state

    return LastHiddenState().eval()


def build_once(folder: Path, build: Callable[[Path], None]) -> None:
    """Run `build` into a folder of this process's own, then rename it to `folder` whole: a killed
    build leaves only a `.partial-<pid>` folder, and of two processes building at once the first
    rename wins."""
    tmp = folder.with_name(f"{folder.name}.partial-{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    try:
        build(tmp)
        tmp.rename(folder)
    except OSError:
        if not folder.exists():
            raise
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def ensure_minilm_onnx(cache_dir: Path) -> Path:
    """The exported graph's path; exported on the first call (seconds), then reused."""
    target = cache_dir / minilm_onnx_name() / GRAPH_FILE
    if not target.exists():
        build_once(target.parent, _export)
    return target


def _export(folder: Path) -> None:
    import torch

    example = (torch.ones(2, 8, dtype=torch.long), torch.ones(2, 8, dtype=torch.long),
               torch.zeros(2, 8, dtype=torch.long))
    axes = {name: {0: "batch", 1: "sequence"} for name in (*INPUTS, OUTPUT)}
    torch.onnx.export(_graph(load_minilm()[0].auto_model), example, str(folder / GRAPH_FILE),
                      input_names=list(INPUTS), output_names=[OUTPUT], dynamic_axes=axes,
                      opset_version=OPSET, dynamo=False)
