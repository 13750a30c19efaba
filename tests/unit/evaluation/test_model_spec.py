from __future__ import annotations

from typing import Any

import pytest
import yaml
from scicustom.core.errors import InvalidInput
from scicustom.core.evaluation.model_spec import ChatModelSpec, LocalModelSpec, parse_models_file

EXAMPLE = """
defaults:
  params: {temperature: 0, max_tokens: 256}
providers:
  openai: {requests_per_minute: 500, max_retries: 2}
  vllm: {api_base: "http://127.0.0.1:8000/v1", api_key: EMPTY, backoff_s: 0.5}
models:
  - name: gpt-4o
    model: openai/gpt-4o
    params: {max_tokens: 512, temperature: null}
  - name: qwen
    model: openai/Qwen2.5-7B-Instruct
    provider: vllm
  - name: claude
    model: anthropic/claude-opus-4-5
  - name: smollm2
    kind: local
    model: smollm2
    scoring: text
    batch_size: 4
"""


def test_parses_the_documented_example() -> None:
    parsed = parse_models_file(yaml.safe_load(EXAMPLE))
    gpt, qwen, claude, smol = parsed.models
    assert gpt == ChatModelSpec("gpt-4o", "openai/gpt-4o", "openai", {"max_tokens": 512})
    assert qwen.provider == "vllm" and qwen.params == {"temperature": 0, "max_tokens": 256}
    assert isinstance(claude, ChatModelSpec) and claude.provider == "anthropic"
    assert smol == LocalModelSpec("smollm2", "smollm2", None, "text", 4, 1024)
    assert parsed.providers["openai"].requests_per_minute == 500
    assert parsed.providers["vllm"].api_base == "http://127.0.0.1:8000/v1"
    assert parsed.providers["vllm"].backoff_s == 0.5


def _models(*entries: dict[str, Any], **top: Any) -> dict[str, Any]:
    return {"models": list(entries), **top}


@pytest.mark.parametrize(("document", "where"), [
    (None, "models.models: expected a non-empty list"),  # an empty YAML file
    (["a"], "models: expected a mapping"),
    ({"models": []}, "models.models: expected a non-empty list"),
    ({"models": [{"model": "openai/x"}]}, r"models\.models\[0\]\.name: required"),
    (_models({"name": "a", "model": "openai/x"}, {"name": "a", "model": "openai/y"}), "duplicate model name 'a'"),
    (_models({"name": "a"}), r"models\[0\]\.model: required"),
    (_models({"name": "a", "model": "openai/x", "temprature": 0}), "unknown key"),
    (_models({"name": "a", "model": "openai/x", "provider": "nope"}), "'nope' is not under providers"),
    (_models({"name": "a", "kind": "remote", "model": "x"}), "'remote' is not 'litellm' or 'local'"),
    (_models({"name": "a", "kind": "local"}), "exactly one of `model`"),
    (_models({"name": "a", "kind": "local", "model": "gpt2"}), "'gpt2' is not packaged"),
    (_models({"name": "a", "kind": "local", "model": "smollm2", "scoring": "sum"}), "'sum' is not"),
    (_models({"name": "a", "kind": "local", "model": "smollm2", "batch_size": 0}), "batch_size: must be > 0"),
    (_models({"name": "a", "kind": "local", "model": "smollm2", "batch_size": True}), "wrong type bool"),
    (_models({"name": "a", "model": "p/x"}, providers={"p": {"requests_per_minute": "fast"}}), "wrong type str"),
    (_models({"name": "a", "model": "p/x"}, providers={"p": {"max_retries": -1}}), "must be >= 0"),
    (_models({"name": "a", "model": "p/x"}, extra=1), "unknown key"),
])
def test_bad_models_files_name_the_field(document: Any, where: str) -> None:
    with pytest.raises(InvalidInput, match=where):
        parse_models_file(document)
