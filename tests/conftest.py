from __future__ import annotations

import os

import pytest

# Nothing in the tests may reach a model hub or price list on the internet.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


@pytest.fixture
def recorded_llm():
    from tests.support.recorded_llm_server import RecordedLLMServer

    with RecordedLLMServer() as server:
        yield server


@pytest.fixture(autouse=True)
def _global_tracer_provider_restored():
    """A CLI call in a test (`scicustom build` in the cluster profile, `service`) installs the
    process-wide tracer provider, which OpenTelemetry lets a process set only once; without this,
    every later test in the run would trace with it."""
    from opentelemetry import trace

    saved = trace._TRACER_PROVIDER, trace._TRACER_PROVIDER_SET_ONCE._done
    yield
    trace._TRACER_PROVIDER, trace._TRACER_PROVIDER_SET_ONCE._done = saved


@pytest.fixture(autouse=True)
def _registered_secrets_restored():
    """A CLI call registers its settings' secret values for masking, process-wide; a value such as
    a CI password that is also an ordinary word would otherwise mask text in every later test."""
    from scicustom.telemetry import redaction

    saved = set(redaction._known)
    yield
    redaction._known.clear()
    redaction._known.update(saved)
