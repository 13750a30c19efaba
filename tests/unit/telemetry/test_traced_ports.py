"""The traced port wrappers: the port contracts still hold through them, each call makes one span
with its attributes, and results and exceptions pass through unchanged."""

from __future__ import annotations

import numpy as np
import pytest
from opentelemetry.trace import SpanKind, StatusCode

from scicustom.adapters.embedded_search_index import EmbeddedSearchIndex
from scicustom.adapters.embedded_vector_index import EmbeddedVectorIndex
from scicustom.adapters.filesystem_store import FilesystemObjectStore
from scicustom.adapters.litellm_llm import LiteLLMAdapter
from scicustom.adapters.llm_response_cache import LLMResponseCache
from scicustom.adapters.sparse_unit_index import SparseUnitIndex
from scicustom.adapters.traced_llm import TracedLLM
from scicustom.adapters.traced_object_store import TracedObjectStore
from scicustom.adapters.traced_search_index import (
    UNIT_METHODS,
    TracedSearchIndex,
    TracedUnitIndex,
    TracedVectorIndex,
    traced_index,
)
from scicustom.core.build.candidates import Candidate
from scicustom.core.errors import InvalidInput
from scicustom.ports import Completion, ObjectStore
from tests.support.contracts.object_store import ObjectStoreContract
from tests.support.contracts.search_index import CONSENSUS, EXPECTED, SMALL, UNITS, SearchIndexContract


class TestTracedStoreKeepsTheContract(ObjectStoreContract):
    @pytest.fixture
    def store(self, tmp_path, tracing):
        return TracedObjectStore(FilesystemObjectStore(tmp_path / "store"), tracing.provider)


class TestTracedIndexKeepsTheContract(SearchIndexContract):
    @pytest.fixture
    def make_index(self, tracing):
        return lambda unit_ids, dims: traced_index(EmbeddedSearchIndex(unit_ids, dims), tracing.provider)


def test_store_spans_carry_keys_sizes_and_counts(tmp_path, tracing):
    inner = FilesystemObjectStore(tmp_path)
    store = TracedObjectStore(inner, tracing.provider)
    store.put_bytes("builds/b1/spec.json", b"12345")
    assert store.get_bytes("builds/b1/spec.json") == b"12345"
    assert store.exists("builds/b1/spec.json") and not store.exists("nope")
    assert store.list_keys("builds/") == ["builds/b1/spec.json"]
    store.delete("builds/b1/spec.json")
    spans = tracing.spans()
    assert [s.name for s in spans] == ["store.put_bytes", "store.get_bytes", "store.exists", "store.exists",
                                       "store.list_keys", "store.delete"]
    assert all(s.kind == SpanKind.CLIENT and s.attributes["scicustom.adapter"] == "FilesystemObjectStore"
               for s in spans)
    key = "builds/b1/spec.json"
    assert [{k: v for k, v in s.attributes.items() if k != "scicustom.adapter"} for s in spans] == [
        {"scicustom.store.key": key, "scicustom.store.bytes": 5},
        {"scicustom.store.key": key, "scicustom.store.bytes": 5},
        {"scicustom.store.key": key, "scicustom.store.exists": True},
        {"scicustom.store.key": "nope", "scicustom.store.exists": False},
        {"scicustom.store.prefix": "builds/", "scicustom.store.keys": 1},
        {"scicustom.store.key": key},
    ]
    assert store.root == tmp_path  # adapter attributes pass through
    assert isinstance(store, ObjectStore)


def test_store_exceptions_pass_through_unchanged_and_mark_the_span(tmp_path, tracing):
    store = TracedObjectStore(FilesystemObjectStore(tmp_path), tracing.provider)
    with pytest.raises(KeyError) as raised:
        store.get_bytes("missing")
    assert raised.value.args == ("missing",)

    class FailingStore(FilesystemObjectStore):
        error = OSError(28, "No space left on device")

        def put_bytes(self, key: str, data: bytes) -> None:
            raise self.error

    failing = TracedObjectStore(FailingStore(tmp_path), tracing.provider)
    with pytest.raises(OSError) as raised_os:
        failing.put_bytes("k", b"x")
    assert raised_os.value is FailingStore.error
    get, put = tracing.spans()
    assert get.status.status_code == put.status.status_code == StatusCode.ERROR
    assert [e.attributes["exception.type"] for e in (*get.events, *put.events)] == ["KeyError", "OSError"]
    assert put.attributes["scicustom.adapter"] == "FailingStore"


def _port_methods(index: object) -> set[str]:
    return {m for m in (*UNIT_METHODS, "nearest", "index_items") if callable(getattr(index, m, None))}


def test_traced_index_offers_exactly_the_wrapped_ports(tmp_path, tracing):
    units = SparseUnitIndex.from_tags({"a": [("u1", 0.9)]}, ["u1"])
    vectors = EmbeddedVectorIndex(["a"], np.ones((1, 2), dtype=np.float32))
    both = EmbeddedSearchIndex(["u1"], 2)
    assert type(traced_index(units, tracing.provider)) is TracedUnitIndex
    assert type(traced_index(vectors, tracing.provider)) is TracedVectorIndex
    assert type(traced_index(both, tracing.provider)) is TracedSearchIndex
    # The port methods a wrapper answers to are those of what it wraps (Protocol checks agree).
    assert _port_methods(traced_index(units)) == _port_methods(units) == set(UNIT_METHODS)
    assert _port_methods(traced_index(vectors)) == _port_methods(vectors) == {"nearest"}
    assert _port_methods(traced_index(both)) == {*UNIT_METHODS, "nearest", "index_items"}
    with pytest.raises(TypeError, match="neither UnitIndex nor VectorIndex"):
        traced_index(FilesystemObjectStore(tmp_path))
    # Adapter-specific methods pass through: the traced sparse index still saves itself.
    traced_index(units).save(FilesystemObjectStore(tmp_path), "units.npz")
    assert SparseUnitIndex.load(FilesystemObjectStore(tmp_path), "units.npz").item_ids() == ["a"]


def test_index_spans_carry_counts_and_paging(tracing):
    index = traced_index(EmbeddedSearchIndex(UNITS, 3), tracing.provider)
    assert index.index_items(SMALL) == 6
    assert index.ordered_candidates(["u1", "u2", "u3"], CONSENSUS, limit=2, after=EXPECTED[0]) == EXPECTED[1:3]
    assert index.ordered_candidates(["u4"], CONSENSUS) == [Candidate("d", ("u4",), 4.0)]
    assert [h[0] for h in index.nearest(np.array([1.0, 0.0, 0.0]), 2)] == ["a", "c"]
    assert index.items_with_units(["u2", "u1"]) == {"a": ["u2", "u1"], "b": ["u2"], "c": ["u1"]}
    assert index.unit_counts()["u1"] == 2 and len(index.item_ids()) == 6
    with pytest.raises(InvalidInput):
        index.ordered_candidates(["u1"], {})
    attributes = [(s.name, {k: v for k, v in s.attributes.items() if k != "scicustom.adapter"})
                  for s in tracing.spans()]
    assert attributes == [
        ("index.index_items", {"scicustom.index.items": 6, "scicustom.index.indexed": 6}),
        ("index.ordered_candidates", {"scicustom.index.voted_units": 3, "scicustom.index.limit": 2,
                                      "scicustom.index.after_item": "a", "scicustom.index.candidates": 2}),
        ("index.ordered_candidates", {"scicustom.index.voted_units": 1, "scicustom.index.candidates": 1}),
        ("index.nearest", {"scicustom.index.k": 2, "scicustom.index.hits": 2}),
        ("index.items_with_units", {"scicustom.index.units": 2, "scicustom.index.items": 3}),
        ("index.unit_counts", {"scicustom.index.units": 5}),
        ("index.item_ids", {"scicustom.index.items": 6}),
        ("index.ordered_candidates", {"scicustom.index.voted_units": 1}),
    ]
    assert tracing.spans()[-1].status.status_code == StatusCode.ERROR


class FixedLLM:
    """An LLM double: one fixed completion, or a given error."""

    def __init__(self, completion: Completion | None = None, error: Exception | None = None) -> None:
        self.completion, self.error = completion, error
        self.calls: list[tuple[str, dict]] = []

    def complete(self, model, messages, **params):
        self.calls.append((model, params))
        if self.error is not None:
            raise self.error
        return self.completion


def test_llm_span_records_request_and_usage_but_no_text(tracing):
    reply = Completion("B", "judge-a-2025", prompt_tokens=120, completion_tokens=3, cost_usd=0.0042, cached=False)
    inner = FixedLLM(reply)
    llm = TracedLLM(inner, tracing.provider)
    messages = [{"role": "system", "content": "secret system prompt"}, {"role": "user", "content": "Which?"}]
    assert llm.complete("openai/judge-a", messages, temperature=0, max_tokens=8, stop=["\n"], seed=True) is reply
    assert inner.calls == [("openai/judge-a", {"temperature": 0, "max_tokens": 8, "stop": ["\n"], "seed": True})]
    span = tracing.named("llm.complete")
    assert dict(span.attributes) == {
        "scicustom.adapter": "FixedLLM", "gen_ai.operation.name": "chat", "gen_ai.request.model": "openai/judge-a",
        "scicustom.llm.messages": 2, "gen_ai.request.temperature": 0, "gen_ai.request.max_tokens": 8,
        "gen_ai.response.model": "judge-a-2025", "gen_ai.usage.input_tokens": 120, "gen_ai.usage.output_tokens": 3,
        "scicustom.llm.cost_usd": 0.0042, "scicustom.llm.cached": False}
    assert llm.calls is inner.calls


def test_llm_errors_pass_through_unchanged(tracing):
    error = TimeoutError("provider timed out")
    with pytest.raises(TimeoutError) as raised:
        TracedLLM(FixedLLM(error=error), tracing.provider).complete("openai/judge-a", [])
    assert raised.value is error
    assert tracing.named("llm.complete").status.status_code == StatusCode.ERROR


def test_llm_wrapper_over_litellm_reports_the_cache_and_keeps_usage(tmp_path, tracing, recorded_llm):
    recorded_llm.rules.append(("capital", "Paris"))
    adapter = LiteLLMAdapter(LLMResponseCache(tmp_path / "llm.sqlite"), api_base=recorded_llm.api_base,
                             api_key="test", backoff_s=0.0)
    llm = TracedLLM(adapter, tracing.provider)
    messages = [{"role": "user", "content": "What is the capital of France?"}]
    first = llm.complete("openai/judge-a", messages, temperature=0)
    second = llm.complete("openai/judge-a", messages, temperature=0)
    assert first.text == second.text == "Paris" and len(recorded_llm.calls) == 1
    assert llm.usage is adapter.usage and (llm.usage.calls, llm.usage.cached_calls) == (1, 1)
    live, cached = tracing.spans()
    assert (live.attributes["scicustom.llm.cached"], cached.attributes["scicustom.llm.cached"]) == (False, True)
    assert live.attributes["gen_ai.usage.input_tokens"] == first.prompt_tokens > 0
    assert live.attributes["scicustom.adapter"] == "LiteLLMAdapter"
