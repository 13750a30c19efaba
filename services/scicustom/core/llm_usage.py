"""What LLM calls cost: one tally, summed from the completions the LLM port returns.

The litellm adapter keeps one for its whole life; a use case that reports its own cost (a scorer
request, a command) wraps the port in a `MeteredLLM`, because the service's adapter is shared by
every request.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from scicustom.ports import LLM, Completion


@dataclass
class LLMUsage:
    calls: int = 0  # answered by the provider
    cached_calls: int = 0  # answered by the response cache: free
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float = 0.0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def record(self, completion: Completion) -> None:
        """Count one completion; safe from several threads (suites call the port concurrently)."""
        with self._lock:
            if completion.cached:
                self.cached_calls += 1
            else:
                self.calls += 1
                self.prompt_tokens += completion.prompt_tokens
                self.completion_tokens += completion.completion_tokens
                self.cost_usd += completion.cost_usd

    def summary(self) -> dict[str, Any]:
        """The `usage` record of the scorers' reports (cost rounded to 6 decimals)."""
        return {"calls": self.calls, "cached_calls": self.cached_calls, "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens, "cost_usd": round(self.cost_usd, 6)}

    @classmethod
    def total(cls, usages: Iterable[LLMUsage]) -> LLMUsage:
        parts = list(usages)
        return cls(calls=sum(u.calls for u in parts), cached_calls=sum(u.cached_calls for u in parts),
                   prompt_tokens=sum(u.prompt_tokens for u in parts),
                   completion_tokens=sum(u.completion_tokens for u in parts),
                   cost_usd=math.fsum(u.cost_usd for u in parts))


class MeteredLLM:
    """The LLM port, tallying the completions that pass through it in `usage`."""

    def __init__(self, inner: LLM) -> None:
        self._inner = inner
        self.usage = LLMUsage()

    def complete(self, model: str, messages: Sequence[Mapping[str, str]], **params: Any) -> Completion:
        completion = self._inner.complete(model, messages, **params)
        self.usage.record(completion)
        return completion
