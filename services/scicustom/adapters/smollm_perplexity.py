"""The AnswerPerplexity port on the packaged SmolLM2-135M, batched on CPU.

Questions are left-truncated to their last `max_question_tokens` tokens (the part nearest the
answer); the LM head runs only on answer positions, which is most of the saving for a 49k vocabulary.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from scicustom.adapters.packaged_models import SMOLLM_NAME, load_smollm
from scicustom.adapters.token_batches import right_padded
from scicustom.core.intrinsic import perplexity


class SmolLMPerplexity:
    name = SMOLLM_NAME

    def __init__(self, model_cache: Path, batch_size: int = 16, max_question_tokens: int = 256) -> None:
        self._model_cache = model_cache
        self._batch_size = batch_size
        self._max_q = max_question_tokens
        self._loaded: tuple[Any, Any] | None = None

    def _model(self) -> tuple[Any, Any]:
        if self._loaded is None:
            self._loaded = load_smollm(self._model_cache)
        return self._loaded

    def perplexities(self, pairs: Sequence[tuple[str, str]]) -> np.ndarray:
        import torch

        tokenizer, model = self._model()
        encoded = []
        for question, answer in pairs:
            prompt = tokenizer(f"Question: {question}\nAnswer:", add_special_tokens=False)["input_ids"]
            target = tokenizer(f" {answer}", add_special_tokens=False)["input_ids"] or [tokenizer.eos_token_id]
            encoded.append((prompt[-self._max_q :], target))
        order = sorted(range(len(encoded)), key=lambda i: len(encoded[i][0]) + len(encoded[i][1]))
        out = np.zeros(len(encoded), dtype=np.float64)
        pad = tokenizer.pad_token_id
        with torch.inference_mode():
            for start in range(0, len(order), self._batch_size):
                batch = order[start : start + self._batch_size]
                ids, mask = right_padded([encoded[i][0] + encoded[i][1] for i in batch], pad)
                hidden = model.model(input_ids=ids, attention_mask=mask).last_hidden_state
                for row, i in enumerate(batch):
                    prompt, target = encoded[i]
                    # Position p predicts token p+1: answer tokens are predicted from len(prompt)-1 on.
                    positions = torch.arange(len(prompt) - 1, len(prompt) - 1 + len(target))
                    logits = model.lm_head(hidden[row, positions]).float()
                    logprobs = torch.log_softmax(logits, dim=-1)
                    picked = logprobs[torch.arange(len(target)), torch.tensor(target)]
                    out[i] = perplexity(picked.tolist())
        return out
