"""A small synthetic corpus world (four units, real local judges, hashing embeddings) for build tests."""

from __future__ import annotations

import numpy as np

from scicustom.adapters.sparse_unit_index import SparseUnitIndex
from scicustom.core.build.local_judges import (
    EmbeddingUnitRanker,
    ProfileBM25UnitRanker,
    PrototypeUnitRanker,
    local_relevance_jury,
    unit_prototypes,
)
from scicustom.core.build.pipeline import BuildWorld
from scicustom.core.build.relevance import (
    RelevanceModel,
    TopicEvidence,
    exclusive_unit_terms,
    offline_relevance_jury,
    packaged_calibration,
)
from scicustom.core.build.term_postings import TermPostings
from scicustom.core.corpus_item import make_item
from scicustom.core.intrinsic import quality_score
from scicustom.core.units import KnowledgeUnit, UnitCatalog
from tests.support.hashing_embedder import HashingEmbedder

TOPICS = {
    "u1": ("Virology", ["virus capsid", "viral genome", "virus replication host cell", "viral envelope"]),
    "u2": ("Organic chemistry", ["alkene addition", "carbonyl reaction", "aromatic substitution", "ester"]),
    "u3": ("Anatomy", ["femur bone", "heart ventricle", "skull suture", "muscle tendon"]),
    "u4": ("Immune system", ["antibody response", "t cell activation", "virus antigen immune", "cytokine"]),
}


def synthetic_world(n_per_topic: int = 60, open_items: bool = False, offline_jury: bool = False) -> BuildWorld:
    """`offline_jury`: the issue-13 judges (topic-terms, topic-contrast, relevance-model) instead of
    the earlier similarity thresholds."""
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
                # Options of their own: items sharing a key and options would be paraphrases to the quality gate.
                item = make_item("synthetic", "CC0", name, question, [f"{phrase} {k}.{j}" for j in range(4)], k % 4)
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
        if offline_jury:
            voted = [catalog.by_id(u) for u in votes.units] if votes else []
            terms = sorted({t for ts in exclusive_unit_terms(voted).values() for t in ts})
            evidence = TopicEvidence(req, embedder, matrix, list(range(0, len(ids), 3)),
                                     TermPostings([items[i].text for i in ids]), terms)
            return offline_relevance_jury(evidence, vectors, RelevanceModel.packaged())
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
        calibration=packaged_calibration() if offline_jury else {},
    )
