"""An MCQ answerer on a chat model behind the LLM port (cache, retries, rate limit, cost)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from typing import Any

from scicustom.core.evaluation.benchmark_lines import MCQItem
from scicustom.core.evaluation.label_extraction import extract_label
from scicustom.core.evaluation.prompt import SYSTEM_PROMPT, answer_instruction, build_messages
from scicustom.core.evaluation.responses import ModelAnswer
from scicustom.ports import LLM


class ChatMCQAnswerer:
    batch_size = 1  # one request per item; concurrency comes from the run's thread pool

    def __init__(self, name: str, llm: LLM, model: str, params: Mapping[str, Any],
                 max_workers: int = 64) -> None:
        self.name = name
        self.max_workers = max_workers
        self._llm = llm
        self._model = model
        self._params = dict(params)

    def fingerprint(self) -> str:
        config = {"kind": "chat", "model": self._model, "params": self._params,
                  "prompt": [SYSTEM_PROMPT, answer_instruction(("A", "B"))]}
        return hashlib.sha256(json.dumps(config, sort_keys=True, default=str).encode()).hexdigest()[:16]

    def answer_batch(self, items: Sequence[MCQItem]) -> list[ModelAnswer]:
        return [self._answer(item) for item in items]

    def _answer(self, item: MCQItem) -> ModelAnswer:
        completion = self._llm.complete(self._model, build_messages(item), **self._params)
        extraction = extract_label(completion.text, item.options)
        return ModelAnswer(
            text=completion.text, chosen=extraction.label, rule=extraction.rule,
            prompt_tokens=completion.prompt_tokens, completion_tokens=completion.completion_tokens,
            cost_usd=completion.cost_usd, cached=completion.cached,
        )
