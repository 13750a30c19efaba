"""The LLM port with a span per completion, delegating to any LLM (the litellm adapter in practice).

Attributes follow the OpenTelemetry gen_ai conventions where they exist; prompts and replies are
not recorded (size, and what users put in them)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from scicustom.ports import Completion
from scicustom.telemetry.port_spans import TracedPort

# Request parameters recorded when given, as gen_ai.request.<name>.
RECORDED_PARAMS = ("temperature", "max_tokens", "top_p", "seed")


class TracedLLM(TracedPort):
    """Spans `llm.complete`: model, message count, numeric sampling parameters, then the response
    model, token counts, cost and whether the answer came from the cache. Everything else of the
    wrapped adapter (e.g. `.usage`) is reachable through the wrapper."""

    def complete(self, model: str, messages: Sequence[Mapping[str, str]], **params: Any) -> Completion:
        attributes: dict[str, Any] = {"gen_ai.operation.name": "chat", "gen_ai.request.model": model,
                                      "scicustom.llm.messages": len(messages)}
        for name in RECORDED_PARAMS:
            value = params.get(name)
            if isinstance(value, int | float) and not isinstance(value, bool):
                attributes[f"gen_ai.request.{name}"] = value
        with self._spans.span("llm.complete", attributes) as span:
            completion = self.inner.complete(model, messages, **params)
            span.set_attributes({"gen_ai.response.model": completion.model,
                                 "gen_ai.usage.input_tokens": completion.prompt_tokens,
                                 "gen_ai.usage.output_tokens": completion.completion_tokens,
                                 "scicustom.llm.cost_usd": completion.cost_usd,
                                 "scicustom.llm.cached": completion.cached})
            return completion
