"""One tally of LLM calls: the adapter's lifetime usage and a use case's MeteredLLM count alike."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from scicustom.core.llm_usage import LLMUsage, MeteredLLM
from scicustom.ports import Completion


class FixedLLM:
    def complete(self, model: str, messages: Sequence[Mapping[str, str]], **params: Any) -> Completion:
        cached = messages[0]["content"] == "again"
        return Completion(text="ok", model=model, prompt_tokens=10, completion_tokens=5, cost_usd=0.1, cached=cached)


def test_cached_calls_are_free_and_threads_lose_no_count() -> None:
    metered = MeteredLLM(FixedLLM())
    asks = [[{"role": "user", "content": "again" if i % 4 == 0 else "new"}] for i in range(400)]
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda messages: metered.complete("m", messages), asks))
    usage = metered.usage
    assert (usage.calls, usage.cached_calls, usage.prompt_tokens, usage.completion_tokens) == (300, 100, 3000, 1500)
    assert usage.summary() == {"calls": 300, "cached_calls": 100, "prompt_tokens": 3000, "completion_tokens": 1500,
                               "cost_usd": 30.0}


def test_total_sums_exactly() -> None:
    parts = [LLMUsage(calls=1, cost_usd=0.1) for _ in range(10)]
    total = LLMUsage.total(parts)
    assert total.calls == 10 and total.cost_usd == 1.0  # fsum: no 0.9999999999999999
    assert LLMUsage.total([]) == LLMUsage()
