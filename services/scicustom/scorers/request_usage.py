"""The LLM port with the totals of one request's calls.

The service's LLM adapter is shared by every request and totals the server's whole life; a report
states what its own request cost, so each request wraps the port in a `MeteredLLM`.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import Any

from scicustom.ports import LLM, Completion


class MeteredLLM:
    def __init__(self, inner: LLM) -> None:
        self._inner = inner
        self._lock = threading.Lock()  # suites call the port from worker threads
        self.calls = 0
        self.cached_calls = 0
        self.prompt_tokens = 0
        self.completion_tokens = 0
        self.cost_usd = 0.0

    def complete(self, model: str, messages: Sequence[Mapping[str, str]], **params: Any) -> Completion:
        completion = self._inner.complete(model, messages, **params)
        with self._lock:
            if completion.cached:
                self.cached_calls += 1
            else:
                self.calls += 1
                self.prompt_tokens += completion.prompt_tokens
                self.completion_tokens += completion.completion_tokens
                self.cost_usd += completion.cost_usd
        return completion

    def summary(self) -> dict[str, Any]:
        """The usage record of the CLI's reports (commands/llm_access.usage_summary)."""
        return {"calls": self.calls, "cached_calls": self.cached_calls, "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens, "cost_usd": round(self.cost_usd, 6)}
