"""The whole online pipeline on a synthetic corpus with the real local judges."""

from __future__ import annotations

import math

import pytest

from scicustom.core.build.local_judges import (
    EmbeddingUnitRanker,
    ProfileBM25UnitRanker,
    PrototypeUnitRanker,
)
from scicustom.core.build.pipeline import METHODS, BuildParams, BuildPipeline
from scicustom.core.errors import InvalidInput
from scicustom.core.requirement import requirement_from_text
from tests.support.hashing_embedder import HashingEmbedder
from tests.support.synthetic_world import synthetic_world

REQ = requirement_from_text("virology: virus capsid, viral genome and virus replication in the host cell")


def test_scicustom_build_selects_virology_items():
    result = BuildPipeline(synthetic_world()).run(REQ, BuildParams(k1=2, k2=20, proxy_samples=10, seed=1))
    assert result.voting["units"][0]["name"] == "Virology"
    n = result.cutoff["n_candidates"]
    assert result.cutoff["n_probes"] <= math.ceil(math.log2(n + 1))
    assert 0 < len(result.benchmark) <= 20
    for mcq in result.benchmark:
        assert mcq.answer in "ABCDE"
        assert sum(line.startswith(f"{mcq.answer}. ") for line in mcq.query.splitlines()) == 1
        assert "Virology" in mcq.provenance["units"] or "Immune system" in mcq.provenance["units"]
    assert result.coverage["units"][0]["corpus_items"] == 60


def test_same_inputs_and_seed_give_identical_results():
    a = BuildPipeline(synthetic_world()).run(REQ, BuildParams(k1=2, k2=20, proxy_samples=10, seed=3))
    b = BuildPipeline(synthetic_world()).run(REQ, BuildParams(k1=2, k2=20, proxy_samples=10, seed=3))
    assert [m.to_record() for m in a.benchmark] == [m.to_record() for m in b.benchmark]
    assert a.cutoff == b.cutoff and a.proxy == b.proxy


@pytest.mark.parametrize("method", METHODS)
def test_every_method_builds(method):
    result = BuildPipeline(synthetic_world()).run(REQ, BuildParams(method=method, k1=2, k2=15, proxy_samples=5))
    assert 0 < len(result.benchmark) <= 15
    assert len({m.id for m in result.benchmark}) == len(result.benchmark)


def test_open_items_get_offline_distractors():
    result = BuildPipeline(synthetic_world(open_items=True)).run(REQ, BuildParams(method="no-cutoff", k1=1, k2=60))
    open_mcqs = [m for m in result.benchmark if m.distractor_method == "nearest-items"]
    assert open_mcqs
    for mcq in open_mcqs:
        assert len(mcq.query.splitlines()) == 5


def test_jury_of_two_is_refused():
    world = synthetic_world()
    world.unit_rankers = list(world.unit_rankers)[:2]
    with pytest.raises(InvalidInput, match="at least 3"):
        BuildPipeline(world).run(REQ, BuildParams())


def test_unknown_method_is_refused():
    with pytest.raises(InvalidInput, match="method"):
        BuildPipeline(synthetic_world()).run(REQ, BuildParams(method="magic"))


def test_requirement_no_majority_ranks_matches_nothing():
    world = synthetic_world()
    world.unit_rankers = [EmbeddingUnitRanker(HashingEmbedder()),  # gated: abstains on four units
                          ProfileBM25UnitRanker({"u1": "virus"}),
                          PrototypeUnitRanker(HashingEmbedder(), {})]
    with pytest.raises(InvalidInput, match="matches no knowledge unit"):
        BuildPipeline(world).run(REQ, BuildParams())
