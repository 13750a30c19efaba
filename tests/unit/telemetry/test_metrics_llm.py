"""LLM metrics from the litellm adapter against a recorded OpenAI-compatible server: calls by outcome,
tokens, cost, cache hits and misses, provider-call latency; the same numbers the adapter's usage has."""

from __future__ import annotations

import pytest

from scicustom.adapters.litellm_llm import LiteLLMAdapter
from scicustom.adapters.llm_response_cache import LLMResponseCache
from scicustom.core.errors import LLMCallFailed
from scicustom.telemetry.metrics import PlatformMetrics
from scicustom.telemetry.metrics_endpoint import start_metrics_endpoint
from tests.unit.telemetry.prometheus_scrape import scrape

MODEL = "openai/gpt-4o-mini"  # priced in litellm's bundled cost map, so the cost is not zero


def test_calls_tokens_cost_and_cache_hits(tmp_path, recorded_llm):
    metrics = PlatformMetrics()
    adapter = LiteLLMAdapter(LLMResponseCache(tmp_path / "llm.sqlite"), api_base=recorded_llm.api_base,
                             api_key="test", backoff_s=0.0, max_retries=0, metrics=metrics)
    recorded_llm.rules.append(("capital", "Paris"))
    ask = [{"role": "user", "content": "What is the capital of France?"}]
    assert not adapter.complete(MODEL, ask, temperature=0).cached
    assert adapter.complete(MODEL, ask, temperature=0).cached  # the same call: the cache answers
    adapter.complete(MODEL, [{"role": "user", "content": "another question"}])
    recorded_llm.fail_next = 1
    with pytest.raises(LLMCallFailed):
        adapter.complete(MODEL, [{"role": "user", "content": "fails"}])

    endpoint = start_metrics_endpoint("127.0.0.1", 0, metrics)
    try:
        page = scrape(endpoint.url)
    finally:
        endpoint.stop()
    usage = adapter.usage
    assert (usage.calls, usage.cached_calls) == (2, 1)
    assert page.value("scicustom_llm_calls_total", model=MODEL, outcome="ok") == usage.calls
    assert page.value("scicustom_llm_calls_total", model=MODEL, outcome="cached") == usage.cached_calls
    assert page.value("scicustom_llm_calls_total", model=MODEL, outcome="error") == 1
    assert page.value("scicustom_llm_tokens_total", model=MODEL, kind="prompt") == usage.prompt_tokens == 20
    assert page.value("scicustom_llm_tokens_total", model=MODEL, kind="completion") == usage.completion_tokens == 10
    cost = page.value("scicustom_llm_cost_usd_total", model=MODEL)
    assert cost == pytest.approx(usage.cost_usd) and cost > 0
    assert page.value("scicustom_llm_cache_total", result="hit") == 1
    assert page.value("scicustom_llm_cache_total", result="miss") == 3
    # Provider calls only (the cached answer took none): the two answered and the failed one.
    assert page.value("scicustom_llm_call_seconds_count", model=MODEL) == 3
