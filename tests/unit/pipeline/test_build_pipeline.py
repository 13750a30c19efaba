"""The whole online pipeline on a synthetic corpus with the real local judges."""

from __future__ import annotations

import math

import numpy as np
import pytest

from scicustom.adapters.sparse_unit_index import SparseUnitIndex
from scicustom.core.build_pipeline import METHODS, BuildParams, BuildPipeline, BuildWorld
from scicustom.core.corpus_item import make_item
from scicustom.core.errors import InvalidInput
from scicustom.core.intrinsic import quality_score
from scicustom.core.local_judges import (
    EmbeddingUnitRanker,
    ProfileBM25UnitRanker,
    PrototypeUnitRanker,
    local_relevance_jury,
    unit_prototypes,
)
from scicustom.core.requirement import requirement_from_text
from scicustom.core.units import KnowledgeUnit, UnitCatalog
from tests.support.hashing_embedder import HashingEmbedder

TOPICS = {
    "u1": ("Virology", ["virus capsid", "viral genome", "virus replication host cell", "viral envelope"]),
    "u2": ("Organic chemistry", ["alkene addition", "carbonyl reaction", "aromatic substitution", "ester"]),
    "u3": ("Anatomy", ["femur bone", "heart ventricle", "skull suture", "muscle tendon"]),
    "u4": ("Immune system", ["antibody response", "t cell activation", "virus antigen immune", "cytokine"]),
}


def _world(n_per_topic: int = 60, open_items: bool = False) -> BuildWorld:
    catalog = UnitCatalog([KnowledgeUnit(u, name, "d") for u, (name, _) in TOPICS.items()]
                          + [KnowledgeUnit("ns", "Non-Scientific", "non-scientific")])
    rng = np.random.default_rng(0)
    items, tags = {}, {}
    for unit, (name, phrases) in TOPICS.items():
        for k in range(n_per_topic):
            phrase = phrases[k % len(phrases)]
            question = f"Question {k} about the {phrase} in {name.lower()} number {rng.integers(1000)}?"
            if open_items and k % 3 == 0:
                item = make_item("synthetic", "CC0", name, question, [], None, f"{phrase} answer {k}")
            else:
                item = make_item("synthetic", "CC0", name, question, [f"{phrase} {j}" for j in range(4)], k % 4)
            items[item.id] = item
            tags[item.id] = [(unit, 0.9)] + ([("u4", 0.5)] if unit == "u1" and k % 2 else [])
    embedder = HashingEmbedder()
    ids = sorted(items)
    matrix = embedder.encode([items[i].text for i in ids])
    row = {i: r for r, i in enumerate(ids)}
    index = SparseUnitIndex.from_tags(tags, [u.id for u in catalog.units])
    prototypes = unit_prototypes(matrix, [[u for u, _ in tags[i]] for i in ids])
    profiles = {u: name + "\n" + "\n".join(p) for u, (name, p) in TOPICS.items()}
    background = [items[i] for i in ids[::3]]
    vectors = {i: matrix[row[i]] for i in ids}

    item_units = {i: [u for u, _ in tags[i]] for i in ids}

    def jury(req, votes):
        return local_relevance_jury(req, embedder, vectors, background, list(votes.units) if votes else [],
                                    item_units, 0.75)

    def neighbours(item):
        return [items[i].answer for i in ids if i != item.id and tags[i][0][0] == tags[item.id][0][0]]

    return BuildWorld(
        catalog=catalog, items=items, index=index, vector=lambda i: matrix[row[i]],
        requirement_vector=lambda req: embedder.encode([req.text])[0],
        all_item_similarity=lambda v: (ids, matrix @ v),
        # Four units are too few for the outlier gate (z can reach at most sqrt(3)).
        unit_rankers=[EmbeddingUnitRanker(embedder, min_top_z=None), ProfileBM25UnitRanker(profiles),
                      PrototypeUnitRanker(embedder, prototypes, min_top_z=None)],
        relevance_jury=jury,
        intrinsic=lambda need: {it.id: (quality_score(it.question, it.answer), 1.0 + len(it.answer)) for it in need},
        neighbour_answers=neighbours,
    )


REQ = requirement_from_text("virology: virus capsid, viral genome and virus replication in the host cell")


def test_scicustom_build_selects_virology_items():
    result = BuildPipeline(_world()).run(REQ, BuildParams(k1=2, k2=20, proxy_samples=10, seed=1))
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
    a = BuildPipeline(_world()).run(REQ, BuildParams(k1=2, k2=20, proxy_samples=10, seed=3))
    b = BuildPipeline(_world()).run(REQ, BuildParams(k1=2, k2=20, proxy_samples=10, seed=3))
    assert [m.to_record() for m in a.benchmark] == [m.to_record() for m in b.benchmark]
    assert a.cutoff == b.cutoff and a.proxy == b.proxy


@pytest.mark.parametrize("method", METHODS)
def test_every_method_builds(method):
    result = BuildPipeline(_world()).run(REQ, BuildParams(method=method, k1=2, k2=15, proxy_samples=5))
    assert 0 < len(result.benchmark) <= 15
    assert len({m.id for m in result.benchmark}) == len(result.benchmark)


def test_open_items_get_offline_distractors():
    result = BuildPipeline(_world(open_items=True)).run(REQ, BuildParams(method="no-cutoff", k1=1, k2=60))
    open_mcqs = [m for m in result.benchmark if m.distractor_method == "nearest-items"]
    assert open_mcqs
    for mcq in open_mcqs:
        assert len(mcq.query.splitlines()) == 5


def test_jury_of_two_is_refused():
    world = _world()
    world.unit_rankers = list(world.unit_rankers)[:2]
    with pytest.raises(InvalidInput, match="at least 3"):
        BuildPipeline(world).run(REQ, BuildParams())


def test_unknown_method_is_refused():
    with pytest.raises(InvalidInput, match="method"):
        BuildPipeline(_world()).run(REQ, BuildParams(method="magic"))


def test_requirement_no_majority_ranks_matches_nothing():
    world = _world()
    world.unit_rankers = [EmbeddingUnitRanker(HashingEmbedder()),  # gated: abstains on four units
                          ProfileBM25UnitRanker({"u1": "virus"}),
                          PrototypeUnitRanker(HashingEmbedder(), {})]
    with pytest.raises(InvalidInput, match="matches no knowledge unit"):
        BuildPipeline(world).run(REQ, BuildParams())
