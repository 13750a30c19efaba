"""The LLM port for scorer commands: litellm behind the persistent response cache, and the flags
that point it at a server. A rerun of a command finds every answer in the cache."""

from __future__ import annotations

import argparse
import os
from typing import Any

from scicustom.adapters.litellm_llm import LiteLLMAdapter
from scicustom.adapters.llm_response_cache import LLMResponseCache
from scicustom.config import Settings
from scicustom.core.errors import InvalidInput


def add_llm_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--api-base", metavar="URL",
                        help="OpenAI-compatible server for every LLM call (vLLM, Ollama, a proxy); "
                             "default: the provider of each model name")
    parser.add_argument("--api-key-env", metavar="VAR",
                        help="environment variable that holds the API key; default: the provider's own")


def build_llm(args: argparse.Namespace) -> LiteLLMAdapter:
    settings = Settings()
    api_key = None
    if args.api_key_env:
        api_key = os.environ.get(args.api_key_env)
        if api_key is None:
            raise InvalidInput("--api-key-env", f"environment variable {args.api_key_env} is not set")
    return LiteLLMAdapter(
        LLMResponseCache(settings.llm_cache_path / "responses.sqlite"),
        max_retries=settings.llm_max_retries, requests_per_minute=settings.llm_requests_per_minute,
        timeout_s=settings.llm_timeout_s, api_base=args.api_base, api_key=api_key,
    )


def usage_summary(llm: LiteLLMAdapter) -> dict[str, Any]:
    u = llm.usage
    return {"calls": u.calls, "cached_calls": u.cached_calls, "prompt_tokens": u.prompt_tokens,
            "completion_tokens": u.completion_tokens, "cost_usd": round(u.cost_usd, 6)}
