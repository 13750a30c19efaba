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
