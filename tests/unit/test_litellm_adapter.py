from __future__ import annotations

import pytest

from scicustom.adapters.litellm_llm import LiteLLMAdapter
from scicustom.adapters.llm_response_cache import LLMResponseCache
from scicustom.core.errors import LLMCallFailed


def _adapter(tmp_path, server, **kw):
    return LiteLLMAdapter(LLMResponseCache(tmp_path / "llm.sqlite"), api_base=server.api_base,
                          api_key="test", backoff_s=0.0, **kw)


def test_completion_is_cached_across_adapters(tmp_path, recorded_llm):
    recorded_llm.rules.append(("capital", "Paris"))
    msgs = [{"role": "user", "content": "What is the capital of France?"}]
    first = _adapter(tmp_path, recorded_llm).complete("openai/recorded", msgs, temperature=0)
    assert first.text == "Paris" and not first.cached
    # A new adapter over the same cache file: a rerun makes no new call.
    again = _adapter(tmp_path, recorded_llm)
    second = again.complete("openai/recorded", msgs, temperature=0)
    assert second.text == "Paris" and second.cached
    assert len(recorded_llm.calls) == 1
    assert again.usage.calls == 0 and again.usage.cached_calls == 1


def test_different_params_are_different_cache_entries(tmp_path, recorded_llm):
    msgs = [{"role": "user", "content": "hi"}]
    adapter = _adapter(tmp_path, recorded_llm)
    adapter.complete("openai/recorded", msgs, temperature=0)
    adapter.complete("openai/recorded", msgs, temperature=1)
    assert len(recorded_llm.calls) == 2
    assert adapter.usage.prompt_tokens == 20


def test_retries_server_errors_then_succeeds(tmp_path, recorded_llm):
    recorded_llm.fail_next = 2
    adapter = _adapter(tmp_path, recorded_llm, max_retries=3)
    out = adapter.complete("openai/recorded", [{"role": "user", "content": "x"}])
    assert out.text == "I cannot answer."
    assert len(recorded_llm.calls) == 3


def test_gives_up_after_bounded_retries(tmp_path, recorded_llm):
    recorded_llm.fail_next = 10
    adapter = _adapter(tmp_path, recorded_llm, max_retries=1)
    with pytest.raises(LLMCallFailed, match="openai/recorded"):
        adapter.complete("openai/recorded", [{"role": "user", "content": "x"}])
    assert len(recorded_llm.calls) == 2


def test_backoff_doubles_from_backoff_s(tmp_path, recorded_llm):
    recorded_llm.fail_next = 3
    waits: list[float] = []
    adapter = LiteLLMAdapter(LLMResponseCache(tmp_path / "llm.sqlite"), api_base=recorded_llm.api_base,
                             api_key="test", backoff_s=0.5, max_retries=3, sleep=waits.append)
    adapter.complete("openai/recorded", [{"role": "user", "content": "x"}])
    assert waits == [0.5, 1.0, 2.0] and len(recorded_llm.calls) == 4


def test_errors_a_retry_cannot_fix_fail_at_once(tmp_path, recorded_llm, monkeypatch):
    import litellm

    class AuthenticationError(Exception):  # litellm's classes are told apart by name
        pass

    calls = []

    def refuse(**kwargs):
        calls.append(kwargs)
        raise AuthenticationError("bad key")

    monkeypatch.setattr(litellm, "completion", refuse)
    adapter = _adapter(tmp_path, recorded_llm, max_retries=3)
    with pytest.raises(LLMCallFailed) as failed:
        adapter.complete("openai/recorded", [{"role": "user", "content": "x"}])
    assert str(failed.value) == "openai/recorded: AuthenticationError: bad key" and len(calls) == 1
