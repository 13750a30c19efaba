from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scicustom.core.tagger_training.query_prompt import PERSONAS, query_messages
from scicustom.core.tagger_training.sampling import (
    PAPER_UNIT_COUNTS,
    CompositionalSampler,
    UnitKeywords,
    readable_keyword,
    split_keywords,
    stable_fraction,
)

UNITS = [
    UnitKeywords("u1", "Optics", "physics", ("lens", "refraction", "lens", "diffraction (optics)")),
    UnitKeywords("u2", "Virology", "medicine", ("virus", "capsid", "viral replication", "influenza", "prion")),
    UnitKeywords("u3", "Heart", "anatomy", ()),
    UnitKeywords("u4", "Alloy", "chemistry", ("steel", "bronze", "brass")),
    UnitKeywords("u5", "Cancer", "medicine", ("tumour", "carcinoma")),
    UnitKeywords("u6", "Lung", "anatomy", ("alveolus",)),
]


def test_pool_adds_the_name_first_drops_duplicates_and_qualifiers() -> None:
    assert UNITS[0].pool() == ("Optics", "lens", "refraction", "diffraction")
    assert UNITS[2].pool() == ("Heart",)


def test_readable_keyword_strips_ontology_qualifiers() -> None:
    assert readable_keyword("lead (metal)") == "lead"
    assert readable_keyword("cracking (chemical engineering) process") == "cracking process"


def test_paper_personas_are_the_twenty_of_appendix_g() -> None:
    assert len(PERSONAS) == 20 and len(set(PERSONAS)) == 20
    assert PERSONAS[0] == "Astrophysicist" and PERSONAS[-1] == "Robotics Engineer"


def test_query_prompt_is_the_papers() -> None:
    low = query_messages("Virologist", ["capsid", "influenza"], "low")
    high = query_messages("Virologist", ["capsid"], "high")
    assert low[0] == {"role": "system", "content": "You are a helpful AI assistant."}
    assert low[1]["content"] == ("You are a Virologist. Generate a user query containing the following keywords: "
                                 "capsid, influenza. Do not introduce other scientific entities or topics. "
                                 "Only return the query.")
    assert "Make the query long and complex." in high[1]["content"]


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_sampled_specs_respect_the_protocol(seed: int) -> None:
    sampler = CompositionalSampler(UNITS, unit_count_p=PAPER_UNIT_COUNTS, max_keywords_per_unit=3)
    spec = sampler.sample(np.random.default_rng(seed))
    assert 1 <= len(spec.unit_ids) <= 5
    assert len(set(spec.unit_ids)) == len(spec.unit_ids)
    by_id = {u.unit_id: u for u in UNITS}
    for unit_id, keywords in zip(spec.unit_ids, spec.keywords, strict=True):
        assert 1 <= len(keywords) <= 3
        assert set(keywords) <= set(by_id[unit_id].pool())
    assert spec.persona in PERSONAS and spec.complexity in ("low", "high")
    assert spec.unit_names == tuple(by_id[u].name for u in spec.unit_ids)


def test_sampling_is_deterministic_for_a_seed_and_covers_one_to_five_units() -> None:
    sampler = CompositionalSampler(UNITS, unit_count_p=PAPER_UNIT_COUNTS)
    a = [sampler.sample(np.random.default_rng(7)) for _ in range(3)]
    b = [sampler.sample(np.random.default_rng(7)) for _ in range(3)]
    assert a == b
    rng = np.random.default_rng(0)
    counts = {len(sampler.sample(rng).unit_ids) for _ in range(300)}
    assert counts == {1, 2, 3, 4, 5}


def test_sampler_rejects_bad_configuration() -> None:
    with pytest.raises(ValueError):
        CompositionalSampler([])
    with pytest.raises(ValueError):
        CompositionalSampler(UNITS, unit_count_p=(0.5, 0.2))


def test_keyword_split_is_disjoint_and_keeps_small_units_whole() -> None:
    train, held = split_keywords(UNITS, 0.5)
    for t, h, u in zip(train, held, UNITS, strict=True):
        if len(u.keywords) < 4:
            assert t.keywords == h.keywords == u.keywords
        else:
            assert set(t.keywords) | set(h.keywords) == set(u.keywords)
            assert not set(t.keywords) & set(h.keywords) or h.keywords == u.keywords


def test_stable_fraction_is_deterministic_and_salted() -> None:
    assert stable_fraction("x", "a") == stable_fraction("x", "a")
    assert stable_fraction("x", "a") != stable_fraction("x", "b")
    assert 0.0 <= stable_fraction("anything", "salt") < 1.0
