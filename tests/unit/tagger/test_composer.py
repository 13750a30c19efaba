from __future__ import annotations

from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from scicustom.adapters.litellm_llm import LiteLLMAdapter
from scicustom.adapters.llm_response_cache import LLMResponseCache
from scicustom.core.tagger_training.composer import (
    CLINICAL,
    CONTEXTS,
    ONE_TOPIC,
    TWO_TOPIC,
    OfflineComposer,
    _side,
    join_terms,
)
from scicustom.core.tagger_training.llm_writer import LLMQueryWriter, clean_query
from scicustom.core.tagger_training.query_prompt import PERSONAS
from scicustom.core.tagger_training.sampling import QuerySpec

terms = st.text(alphabet="abcdefghijklmnopqrstuvwxyz -", min_size=3, max_size=20).map(str.strip).filter(
    lambda t: len(t) >= 3)


@st.composite
def specs(draw: st.DrawFn) -> QuerySpec:
    n = draw(st.integers(1, 5))
    groups = tuple(tuple(draw(st.lists(terms, min_size=1, max_size=3, unique=True))) for _ in range(n))
    domains = tuple(draw(st.sampled_from(["chemistry", "medicine", "anatomy", "physics", "biology", "x"]))
                    for _ in range(n))
    return QuerySpec(tuple(f"u{i}" for i in range(n)), tuple(f"U{i}" for i in range(n)), domains, groups,
                     draw(st.sampled_from(PERSONAS)), draw(st.sampled_from(["low", "high"])))


@settings(max_examples=150, deadline=None)
@given(spec=specs(), seed=st.integers(0, 10_000), side=st.sampled_from(["train", "heldout", "all"]))
def test_every_sampled_keyword_appears_in_the_query(spec: QuerySpec, seed: int, side: str) -> None:
    text = OfflineComposer(side=side).compose(spec, np.random.default_rng(seed))  # type: ignore[arg-type]
    lowered = text.casefold()
    for term in spec.flat_keywords():
        assert term.casefold() in lowered
    assert "{" not in text and "}" not in text


def test_template_sides_are_disjoint_and_cover_all() -> None:
    for templates in (ONE_TOPIC, TWO_TOPIC, CONTEXTS, CLINICAL):
        train, held = set(_side(templates, "train")), set(_side(templates, "heldout"))
        assert train | held == set(templates) or held == set(templates)
        if held != set(templates):
            assert not train & held


def test_composer_writes_varied_questions() -> None:
    spec = QuerySpec(("u1", "u2"), ("Optics", "Heart"), ("physics", "anatomy"), (("lens",), ("atrium",)),
                     "Neuroscientist", "low")
    rng = np.random.default_rng(0)
    texts = {OfflineComposer().compose(spec, rng) for _ in range(80)}
    assert len(texts) > 40
    assert any(t.endswith("?") for t in texts)
    assert any("\nAnswer: " in t for t in texts)


def test_join_terms() -> None:
    assert join_terms(["a"]) == "a"
    assert join_terms(["a", "b"]) == "a and b"
    assert join_terms(["a", "b", "c"]) == "a, b and c"


def test_clean_query_strips_labels_and_quotes() -> None:
    assert clean_query('  "How do lenses focus light?" ') == "How do lenses focus light?"
    assert clean_query("Query: What is a capsid?") == "What is a capsid?"


def test_llm_writer_sends_the_papers_prompt(recorded_llm, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    recorded_llm.rules.append(("capsid", '"How does the capsid protect influenza RNA?"'))
    llm = LiteLLMAdapter(LLMResponseCache(tmp_path / "r.sqlite"), api_base=recorded_llm.api_base, api_key="test")
    writer = LLMQueryWriter(llm, "openai/writer-a")
    spec = QuerySpec(("u2",), ("Virology",), ("medicine",), (("capsid", "influenza"),), "Virologist", "high")
    assert writer.compose(spec, np.random.default_rng(0)) == "How does the capsid protect influenza RNA?"
    prompt = str(recorded_llm.calls[-1])
    assert "You are a Virologist. Generate a user query containing the following keywords: capsid, influenza." in prompt
    assert "Make the query long and complex." in prompt
