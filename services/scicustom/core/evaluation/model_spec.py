"""The models file of `scicustom evaluate` (YAML, read into a dict by the command).

Top-level keys: `defaults.params` (litellm parameters for every chat model), `providers` (per
provider: requests_per_minute, max_retries, backoff_s, timeout_s, api_base, api_key or
api_key_env) and `models`, a list of `{name, model, provider?, params?}` chat models
(`kind: litellm`, the default) and `{name, kind: local, model: smollm2 | path: DIR, scoring:
label | text, batch_size, max_length}` local causal LMs. A chat model's provider is the part of
its litellm model string before "/" unless it names one; its models share one rate limit.
The annotated example is in docs/evaluation.md. Unknown keys are errors, so typos do not pass.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from scicustom.core.errors import InvalidInput

PACKAGED_LOCAL_MODELS = ("smollm2",)
Scoring = Literal["label", "text"]


@dataclass(frozen=True)
class ProviderSpec:
    name: str
    requests_per_minute: int | None = None
    max_retries: int | None = None
    backoff_s: float | None = None
    timeout_s: float | None = None
    api_base: str | None = None
    api_key: str | None = None
    api_key_env: str | None = None


@dataclass(frozen=True)
class ChatModelSpec:
    name: str
    model: str
    provider: str
    params: Mapping[str, Any]


@dataclass(frozen=True)
class LocalModelSpec:
    name: str
    model: str | None  # a packaged model name
    path: str | None  # or a directory with a Hugging Face causal LM
    scoring: Scoring = "label"
    batch_size: int = 8
    max_length: int = 1024


@dataclass(frozen=True)
class ModelsFile:
    models: tuple[ChatModelSpec | LocalModelSpec, ...]
    providers: Mapping[str, ProviderSpec] = field(default_factory=dict)


def _mapping(value: Any, where: str) -> Mapping[str, Any]:
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(isinstance(k, str) for k in value):
        raise InvalidInput(where, "expected a mapping with string keys")
    return value


def _no_unknown(block: Mapping[str, Any], allowed: set[str], where: str) -> None:
    unknown = sorted(set(block) - allowed)
    if unknown:
        raise InvalidInput(where, f"unknown key(s) {', '.join(unknown)}; "
                                  f"allowed: {', '.join(sorted(allowed))}")


def _typed(block: Mapping[str, Any], key: str, kind: type | tuple[type, ...], where: str,
           positive: bool = False) -> Any:
    value = block.get(key)
    if value is None:
        return None
    # bool is an int in Python; a YAML `true` is never a valid number here.
    if isinstance(value, bool) or not isinstance(value, kind):
        raise InvalidInput(f"{where}.{key}", f"wrong type {type(value).__name__}")
    if isinstance(value, str) and not value.strip():
        raise InvalidInput(f"{where}.{key}", "empty")
    checked: Any = value  # isinstance against a runtime `kind` narrows to object
    if positive and checked <= 0:
        raise InvalidInput(f"{where}.{key}", "must be > 0")
    return checked


def _provider(name: str, block: Mapping[str, Any], where: str) -> ProviderSpec:
    _no_unknown(block, {"requests_per_minute", "max_retries", "backoff_s", "timeout_s", "api_base",
                        "api_key", "api_key_env"}, where)
    retries = _typed(block, "max_retries", int, where)
    if retries is not None and retries < 0:
        raise InvalidInput(f"{where}.max_retries", "must be >= 0")
    backoff = _typed(block, "backoff_s", (int, float), where)
    if backoff is not None and backoff < 0:
        raise InvalidInput(f"{where}.backoff_s", "must be >= 0")
    return ProviderSpec(
        name=name,
        requests_per_minute=_typed(block, "requests_per_minute", int, where, positive=True),
        max_retries=retries,
        backoff_s=None if backoff is None else float(backoff),
        timeout_s=_typed(block, "timeout_s", (int, float), where, positive=True),
        api_base=_typed(block, "api_base", str, where),
        api_key=_typed(block, "api_key", str, where),
        api_key_env=_typed(block, "api_key_env", str, where),
    )


def _chat_model(block: Mapping[str, Any], defaults: Mapping[str, Any], providers: Mapping[str, ProviderSpec],
                where: str) -> ChatModelSpec:
    _no_unknown(block, {"name", "kind", "model", "provider", "params"}, where)
    model = _typed(block, "model", str, where)
    if model is None:
        raise InvalidInput(f"{where}.model", "required (a litellm model string such as openai/gpt-4o)")
    provider = _typed(block, "provider", str, where)
    if provider is not None and provider not in providers:
        raise InvalidInput(f"{where}.provider", f"{provider!r} is not under providers")
    merged = {**defaults, **_mapping(block.get("params"), f"{where}.params")}
    return ChatModelSpec(
        name=block["name"], model=model,
        provider=provider or (model.split("/", 1)[0] if "/" in model else "default"),
        params={k: v for k, v in merged.items() if v is not None},
    )


def _local_model(block: Mapping[str, Any], where: str) -> LocalModelSpec:
    _no_unknown(block, {"name", "kind", "model", "path", "scoring", "batch_size", "max_length"}, where)
    model = _typed(block, "model", str, where)
    path = _typed(block, "path", str, where)
    if (model is None) == (path is None):
        raise InvalidInput(where, "a local model needs exactly one of `model` (packaged) or `path`")
    if model is not None and model not in PACKAGED_LOCAL_MODELS:
        raise InvalidInput(f"{where}.model",
                           f"{model!r} is not packaged; known: {', '.join(PACKAGED_LOCAL_MODELS)}")
    scoring = block.get("scoring", "label")
    if scoring not in ("label", "text"):
        raise InvalidInput(f"{where}.scoring", f"{scoring!r} is not 'label' or 'text'")
    return LocalModelSpec(
        name=block["name"], model=model, path=path, scoring=scoring,
        batch_size=_typed(block, "batch_size", int, where, positive=True) or 8,
        max_length=_typed(block, "max_length", int, where, positive=True) or 1024,
    )


def parse_models_file(document: Any, source: str = "models") -> ModelsFile:
    top = _mapping(document, source)
    _no_unknown(top, {"defaults", "providers", "models"}, source)
    defaults = _mapping(top.get("defaults"), f"{source}.defaults")
    _no_unknown(defaults, {"params"}, f"{source}.defaults")
    default_params = _mapping(defaults.get("params"), f"{source}.defaults.params")
    providers = {name: _provider(name, _mapping(block, f"{source}.providers.{name}"),
                                 f"{source}.providers.{name}")
                 for name, block in _mapping(top.get("providers"), f"{source}.providers").items()}
    entries = top.get("models")
    if not isinstance(entries, list) or not entries:
        raise InvalidInput(f"{source}.models", "expected a non-empty list of models")
    models: list[ChatModelSpec | LocalModelSpec] = []
    for i, entry in enumerate(entries):
        where = f"{source}.models[{i}]"
        block = _mapping(entry, where)
        if not isinstance(block.get("name"), str) or not block["name"].strip():
            raise InvalidInput(f"{where}.name", "required")
        if any(existing.name == block["name"] for existing in models):
            raise InvalidInput(f"{where}.name", f"duplicate model name {block['name']!r}")
        kind = block.get("kind", "litellm")
        if kind == "litellm":
            models.append(_chat_model(block, default_params, providers, where))
        elif kind == "local":
            models.append(_local_model(block, where))
        else:
            raise InvalidInput(f"{where}.kind", f"{kind!r} is not 'litellm' or 'local'")
    return ModelsFile(models=tuple(models), providers=providers)
