from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from scicustom.core.errors import InvalidInput
from scicustom.core.evaluation.model_spec import ChatModelSpec, LocalModelSpec, parse_models_file

DOCS = Path(__file__).resolve().parents[3] / "docs" / "evaluation.md"


def _documented_example() -> Any:
    text = DOCS.read_text()
    return yaml.safe_load(text.split("```yaml\n", 1)[1].split("```", 1)[0])


def test_parses_the_documented_example() -> None:
    parsed = parse_models_file(_documented_example())
    gpt, qwen, smol = parsed.models
    assert gpt == ChatModelSpec("gpt-4o", "openai/gpt-4o", "openai", {"temperature": 0, "max_tokens": 512})
    assert qwen == ChatModelSpec("qwen-7b", "openai/Qwen2.5-7B-Instruct", "vllm", {"temperature": 0})
    assert smol == LocalModelSpec("smollm2", "smollm2", None, "text", 8, 1024)
    assert parsed.providers["openai"].requests_per_minute == 500
    assert parsed.providers["vllm"].api_base == "http://127.0.0.1:8000/v1"
    assert parsed.providers["vllm"].api_key == "EMPTY" and parsed.providers["vllm"].api_key_env is None


def test_params_merge_over_defaults_and_null_drops_a_default() -> None:
    parsed = parse_models_file({
        "defaults": {"params": {"temperature": 0, "max_tokens": 256}},
        "models": [{"name": "a", "model": "openai/a", "params": {"max_tokens": 512, "temperature": None}},
                   {"name": "b", "model": "anthropic/b"}, {"name": "c", "model": "bare-name"}],
    })
    a, b, c = parsed.models
    assert isinstance(a, ChatModelSpec) and a.params == {"max_tokens": 512}
    assert isinstance(b, ChatModelSpec) and (b.provider, b.params) == ("anthropic", {"temperature": 0,
                                                                                      "max_tokens": 256})
    assert isinstance(c, ChatModelSpec) and c.provider == "default"


def _models(*entries: dict[str, Any], **top: Any) -> dict[str, Any]:
    return {"models": list(entries), **top}


@pytest.mark.parametrize(("document", "where"), [
    (None, "models.models: expected a non-empty list"),  # an empty YAML file
    (["a"], "models: expected a mapping"),
    ({"models": []}, "models.models: expected a non-empty list"),
    ({"models": [{"model": "openai/x"}]}, r"models\.models\[0\]\.name: required"),
    (_models({"name": "a", "model": "openai/x"}, {"name": "a", "model": "openai/y"}),
     "duplicate model name 'a'"),
    (_models({"name": "a"}), r"models\[0\]\.model: required"),
    (_models({"name": "a", "model": "openai/x", "temprature": 0}), "unknown key"),
    (_models({"name": "a", "model": "openai/x", "provider": "nope"}), "'nope' is not under providers"),
    (_models({"name": "a", "kind": "remote", "model": "x"}), "'remote' is not 'litellm' or 'local'"),
    (_models({"name": "a", "kind": "local"}), "exactly one of `model`"),
    (_models({"name": "a", "kind": "local", "model": "gpt2"}), "'gpt2' is not packaged"),
    (_models({"name": "a", "kind": "local", "model": "smollm2", "scoring": "sum"}), "'sum' is not"),
    (_models({"name": "a", "kind": "local", "model": "smollm2", "batch_size": 0}), "batch_size: must be > 0"),
    (_models({"name": "a", "kind": "local", "model": "smollm2", "batch_size": True}), "wrong type bool"),
    (_models({"name": "a", "model": "p/x"}, providers={"p": {"requests_per_minute": "fast"}}),
     "wrong type str"),
    (_models({"name": "a", "model": "p/x"}, providers={"p": {"max_retries": -1}}), "must be >= 0"),
    (_models({"name": "a", "model": "p/x"}, extra=1), "unknown key"),
])
def test_bad_models_files_name_the_field(document: Any, where: str) -> None:
    with pytest.raises(InvalidInput, match=where):
        parse_models_file(document)
