"""The AnswerPerplexity port on SmolLM2-135M exported to ONNX, run with ONNX Runtime on CPU.

Same prompt, truncation and scoring as the torch adapter (smollm_perplexity.py): questions are
left-truncated to their last `max_question_tokens` tokens, only answer positions reach the LM head.
Batches are length buckets: pairs sorted by token count, a batch closes at `batch_size` rows or
when its padded size would pass `batch_tokens`, so short items never pad to a long one's width.
Tokenising uses the `tokenizers` library directly (no transformers import: seconds at start-up).
With `preload`, the model loads in a background thread from construction on: a build constructs
the adapter when it assembles its world and scores only after the jury, so the load (seconds for
a 650 MB graph) overlaps the stages before it.
"""

from __future__ import annotations

import json
import os
import threading
from collections.abc import Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np

from scicustom.adapters.packaged_models import SMOLLM_NAME
from scicustom.adapters.smollm_onnx_export import (
    GRAPH_FILE,
    META_FILE,
    ONNX_VERSION,
    OUTPUT,
    TOKENIZER_FILE,
    ensure_smollm_onnx,
)
from scicustom.core.intrinsic import perplexity

NAME = f"{SMOLLM_NAME}.{ONNX_VERSION}"


def length_buckets(lengths: Sequence[int], batch_size: int, batch_tokens: int) -> list[list[int]]:
    """Indices grouped shortest first; a group holds <= batch_size rows and <= batch_tokens padded
    tokens (a single longer row still gets a group of its own)."""
    order = sorted(range(len(lengths)), key=lambda i: (lengths[i], i))
    groups: list[list[int]] = []
    for i in order:
        group = groups[-1] if groups else None
        # Sorted ascending, so the newcomer sets the group's padded width.
        if group is not None and len(group) < batch_size and (len(group) + 1) * lengths[i] <= batch_tokens:
            group.append(i)
        else:
            groups.append([i])
    return groups


class OnnxSmolLMPerplexity:
    name = NAME

    def __init__(self, model_cache: Path, batch_size: int = 16, max_question_tokens: int = 256,
                 batch_tokens: int = 4096, threads: int | None = None, preload: bool = False) -> None:
        self._model_cache = model_cache
        self._batch_size = batch_size
        self._batch_tokens = batch_tokens
        self._max_q = max_question_tokens
        self._threads = threads or os.cpu_count() or 1
        self._loaded: tuple[Any, Any, int] | None = None
        self._lock = threading.Lock()
        self._loading: Future[tuple[Any, Any, int]] | None = None
        if preload:
            pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="smollm-onnx-load")
            self._loading = pool.submit(self._load)
            pool.shutdown(wait=False)

    def _load(self) -> tuple[Any, Any, int]:
        import onnxruntime as ort
        from tokenizers import Tokenizer

        folder = ensure_smollm_onnx(self._model_cache)
        options = ort.SessionOptions()
        options.intra_op_num_threads = self._threads
        options.inter_op_num_threads = 1
        # The graph was optimised at export; weights stay in the mapped file instead of being
        # re-packed into private memory (a third of the start-up, and ~600 MB of RSS).
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
        options.add_session_config_entry("session.disable_prepacking", "1")
        # No busy-waiting between ops: the machine is shared with the build's other threads.
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.log_severity_level = 3
        session = ort.InferenceSession(str(folder / GRAPH_FILE), options, providers=["CPUExecutionProvider"])
        tokenizer = Tokenizer.from_file(str(folder / TOKENIZER_FILE))
        eos = int(json.loads((folder / META_FILE).read_text())["eos_token_id"])
        return tokenizer, session, eos

    def _model(self) -> tuple[Any, Any, int]:
        with self._lock:
            if self._loaded is None:
                # A failed preload raises here, in the caller, like a load on first use would.
                self._loaded = self._loading.result() if self._loading is not None else self._load()
            return self._loaded

    def perplexities(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        tokenizer, session, eos = self._model()
        prompts = tokenizer.encode_batch([f"Question: {q}\nAnswer:" for q, _ in pairs], add_special_tokens=False)
        answers = tokenizer.encode_batch([f" {a}" for _, a in pairs], add_special_tokens=False)
        encoded = [(p.ids[-self._max_q :], a.ids or [eos]) for p, a in zip(prompts, answers, strict=True)]
        out = np.zeros(len(encoded), dtype=np.float64)
        lengths = [len(p) + len(a) for p, a in encoded]
        for group in length_buckets(lengths, self._batch_size, self._batch_tokens):
            width = max(lengths[i] for i in group)
            answer_width = max(len(encoded[i][1]) for i in group)
            ids = np.zeros((len(group), width), dtype=np.int64)
            mask = np.zeros((len(group), width), dtype=np.int64)
            positions = np.zeros((len(group), answer_width), dtype=np.int64)
            targets = np.zeros((len(group), answer_width), dtype=np.int64)
            for row, i in enumerate(group):
                prompt, target = encoded[i]
                ids[row, : lengths[i]] = prompt + target
                mask[row, : lengths[i]] = 1
                # Position p predicts token p+1: answer tokens are predicted from len(prompt)-1 on.
                positions[row, : len(target)] = np.arange(len(prompt) - 1, len(prompt) - 1 + len(target))
                targets[row, : len(target)] = target
            (logprobs,) = session.run([OUTPUT], {"input_ids": ids, "attention_mask": mask,
                                                 "positions": positions, "targets": targets})
            for row, i in enumerate(group):
                out[i] = perplexity(logprobs[row, : len(encoded[i][1])].astype(np.float64).tolist())
        return out
