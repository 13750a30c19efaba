"""The LLM port backed by litellm: any provider or OpenAI-compatible server, with a persistent
response cache, retries with exponential backoff, a per-provider rate limit and cost accounting
(per adapter in `usage`, per process in the Prometheus scicustom_llm_* metrics)."""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from tenacity import Retrying, retry_if_exception, stop_after_attempt, wait_exponential

from scicustom.adapters.llm_response_cache import LLMResponseCache, cache_key
from scicustom.adapters.rate_limiter import RateLimiter
from scicustom.core.errors import LLMCallFailed
from scicustom.core.llm_usage import LLMUsage
from scicustom.ports import Completion
from scicustom.telemetry.metrics import PlatformMetrics, process_metrics

# litellm must never fetch its price map from the internet.
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

# Errors a retry cannot fix (litellm's classes, by name: they differ between its versions).
NON_RETRYABLE = frozenset({"AuthenticationError", "BadRequestError", "NotFoundError", "PermissionDeniedError",
                           "UnprocessableEntityError", "ContextWindowExceededError"})


class LiteLLMAdapter:
    def __init__(
        self,
        cache: LLMResponseCache,
        *,
        max_retries: int = 3,
        requests_per_minute: int = 600,
        timeout_s: float = 120.0,
        api_base: str | None = None,
        api_key: str | None = None,
        backoff_s: float = 1.0,
        sleep: Callable[[float], None] = time.sleep,
        metrics: PlatformMetrics | None = None,
    ) -> None:
        self._cache = cache
        self._metrics = metrics or process_metrics()
        self._limiter = RateLimiter(requests_per_minute)
        self._timeout_s = timeout_s
        self._api_base = api_base
        self._api_key = api_key
        # Attempt k (from 1) that fails waits backoff_s * 2**(k - 1) before the next one.
        self._retrying = Retrying(stop=stop_after_attempt(max_retries + 1),
                                  wait=wait_exponential(multiplier=backoff_s, exp_base=2, min=0),
                                  retry=retry_if_exception(_is_retryable), sleep=sleep, reraise=True)
        self.usage = LLMUsage()  # every call of this adapter's life

    @staticmethod
    def warm_up() -> None:
        """Pays litellm's start-up now rather than in the first call: its import (4-5 CPU-s on 2
        cores) and what its first OpenAI-protocol call imports (~1 CPU-s: the OpenAI client's
        resources and litellm's own modules). The completion is litellm's `mock_response`: no request
        leaves the process. A worker calls this before it joins its consumer groups."""
        import litellm
        import openai.resources.chat  # noqa: F401  (what the first real call imports)

        litellm.completion(model="openai/warm-up", messages=[{"role": "user", "content": "warm-up"}],
                           mock_response="warm")

    def complete(self, model: str, messages: Sequence[Mapping[str, str]], **params: Any) -> Completion:
        key = cache_key(model, messages, params)
        hit = self._cache.get(key)
        m = self._metrics
        m.llm_cache.labels("miss" if hit is None else "hit").inc()
        if hit is not None:
            cached = Completion(**{**hit, "cached": True})
            self.usage.record(cached)
            m.llm_calls.labels(model, "cached").inc()
            return cached
        started = time.perf_counter()
        try:
            completion = self._call_with_retries(model, messages, params)
        except LLMCallFailed:
            m.llm_calls.labels(model, "error").inc()
            raise
        finally:
            m.observe(m.llm_latency, time.perf_counter() - started, model)
        self._cache.put(key, {k: v for k, v in completion.__dict__.items() if k != "cached"})
        self.usage.record(completion)
        m.llm_calls.labels(model, "ok").inc()
        m.llm_tokens.labels(model, "prompt").inc(completion.prompt_tokens)
        m.llm_tokens.labels(model, "completion").inc(completion.completion_tokens)
        m.llm_cost.labels(model).inc(completion.cost_usd)
        return completion

    def _call_with_retries(self, model: str, messages: Sequence[Mapping[str, str]],
                           params: Mapping[str, Any]) -> Completion:
        import litellm  # imported lazily: it is slow to import and only needed on a cache miss

        provider = model.split("/", 1)[0]
        # Behind an OpenAI-compatible gateway (vLLM, Ollama, a LiteLLM proxy) every model is served
        # over the OpenAI protocol under its full name.
        routed = model if self._api_base is None or provider == "openai" else f"openai/{model}"

        def attempt() -> Completion:
            self._limiter.acquire(provider)
            response = litellm.completion(
                model=routed, messages=list(messages), timeout=self._timeout_s,
                api_base=self._api_base, api_key=self._api_key, num_retries=0,
                # Reasoning models refuse e.g. temperature=0: drop what a model cannot take.
                drop_params=True, **params,
            )
            return self._to_completion(litellm, model, response)

        try:
            return self._retrying.copy()(attempt)  # a copy: its own attempt count
        except Exception as exc:  # litellm maps provider errors to many classes
            raise LLMCallFailed(f"{model}: {type(exc).__name__}: {exc}") from exc

    @staticmethod
    def _to_completion(litellm: Any, model: str, response: Any) -> Completion:
        text = response.choices[0].message.content or ""
        usage = getattr(response, "usage", None)
        try:
            cost = float(litellm.completion_cost(completion_response=response))
        except Exception:  # unknown local models have no price: count them as free
            cost = 0.0
        return Completion(
            text=text,
            model=model,
            prompt_tokens=int(getattr(usage, "prompt_tokens", 0) or 0),
            completion_tokens=int(getattr(usage, "completion_tokens", 0) or 0),
            cost_usd=cost,
        )


def _is_retryable(exc: BaseException) -> bool:
    return isinstance(exc, Exception) and type(exc).__name__ not in NON_RETRYABLE
