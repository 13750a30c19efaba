"""Assemble a `BuildWorld` from the stored corpus, the unit index and the judges (local models or
the requirement's LLM judges)."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import numpy as np

from scicustom.app.build.neighbour_answers import NeighbourAnswers
from scicustom.app.build.request import JuryOptions
from scicustom.app.components import Components
from scicustom.app.ingest.intrinsic_scoring import ensure_intrinsic_scores
from scicustom.core.build.llm_judges import LLMMCQWriter, LLMRelevanceJudge, LLMUnitRanker
from scicustom.core.build.local_judges import (
    EmbeddingUnitRanker,
    ProfileBM25UnitRanker,
    PrototypeUnitRanker,
    unit_prototypes,
)
from scicustom.core.build.pipeline import BuildWorld
from scicustom.core.build.relevance import (
    TOP_VOTED_UNITS,
    RelevanceModel,
    TopicEvidence,
    exclusive_unit_terms,
    offline_relevance_jury,
    packaged_calibration,
)
from scicustom.core.build.term_postings import TermPostings
from scicustom.core.build.unranked_subjects import UnrankedSubjects
from scicustom.core.build.vote import VoteResult
from scicustom.core.corpus_item import CorpusItem
from scicustom.core.errors import PreconditionFailed
from scicustom.core.progress import Progress
from scicustom.core.requirement import Requirement
from scicustom.core.units import UnitCatalog
from scicustom.ports import MCQWriter, RelevanceJudge, UnitRanker

BACKGROUND_SAMPLE = 2000    # corpus items the local relevance judges are calibrated on
PROFILE_ITEMS = 200         # item questions per unit profile for the BM25 ranker

# (requirement, seed, jury, progress) -> the world and the versions of what it used (for config.json)
AssembleWorld = Callable[[Requirement, int, JuryOptions, Progress], tuple[BuildWorld, dict[str, Any]]]


def corpus_digest(items: Sequence[CorpusItem]) -> str:
    """SHA-256 of the corpus items, every field, in id order: equal for equal corpora however they are
    stored (one items.parquet from `corpus import`, or the ingest workers' batch shards, which a corpus
    loaded through the bus has alone). Each field is written as its length and its text, so no text can
    pass for a field boundary; not as JSON, which took 1.7 s for the 36k-item corpus in every cold build."""
    digest = hashlib.sha256()
    for item in sorted(items, key=lambda it: it.id):
        fields = (item.id, item.source, item.licence, item.subject, item.question, str(len(item.options)),
                  *item.options, "" if item.answer_index is None else str(item.answer_index), item.answer,
                  item.format)
        digest.update("".join(f"{len(f)}:{f}" for f in fields).encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def assemble_world(components: Components, requirement: Requirement, seed: int, jury: JuryOptions,
                   progress: Progress) -> tuple[BuildWorld, dict[str, Any]]:
    """The world a build runs in, and the versions of everything it used (for config.json)."""
    items_list = components.corpus.load_items()
    if not items_list:
        raise PreconditionFailed("the corpus is empty; run `make setup` or `scicustom corpus import`")
    current = components.current_index()
    index = components.unit_index  # scipy-sparse embedded; Elasticsearch in the cluster
    tags = components.corpus.load_tags(current["tagger_version"])
    embedder = components.embedder
    ids, stored = components.corpus.load_embeddings(embedder.name)
    stored_row = {item_id: row for row, item_id in enumerate(ids)}
    items = {it.id: it for it in items_list if it.id in stored_row and it.id in tags}
    order = sorted(items)
    # One copy of the embeddings, rows in `order` (what the evidence and similarity scans index):
    # keeping the stored matrix beside it held the corpus's embeddings twice (issue 17, part 6).
    matrix = stored[[stored_row[i] for i in order]]
    del stored, stored_row, ids
    row_of = {item_id: row for row, item_id in enumerate(order)}
    catalog = components.catalog

    def vector(item_id: str) -> np.ndarray:
        return np.asarray(matrix[row_of[item_id]])

    unit_names = {u.id: u.name for u in catalog.scientific()}
    scientific_tags = {i: [(u, s) for u, s in units if u in unit_names] for i, units in tags.items() if i in items}
    item_units = {i: [u for u, _ in units] for i, units in scientific_tags.items()}
    rankers: list[UnitRanker]
    writer: MCQWriter | None = None
    # The offline relevance jury runs in every build; with --llm-judges the requirement's LLM judges
    # join it (issue 13), so their agreement with the offline judges can be reported.
    progress("jury", 0, 1)
    rng = np.random.default_rng(seed)
    background_rows = [int(i) for i in sorted(rng.choice(len(order), min(BACKGROUND_SAMPLE, len(order)),
                                                           replace=False))]
    postings = TermPostings([items[i].text for i in order])
    vectors = _VectorView(row_of, matrix)
    model = RelevanceModel.packaged()
    llm_jury: list[RelevanceJudge] = []
    if jury.llm_judges:  # request.jury_options checked that the requirement lists them
        frequency = index.unit_counts()
        rankers = [LLMUnitRanker(components.llm, j.litellm_model, frequency) for j in requirement.voting_judges]
        llm_jury = [LLMRelevanceJudge(components.llm, j.litellm_model) for j in requirement.relevance_judges]
        if requirement.mcq_writer:
            writer = LLMMCQWriter(components.llm, requirement.mcq_writer.litellm_model)
    else:
        row_ids = [i for i in order if item_units.get(i)]
        prototypes = unit_prototypes(matrix[[row_of[i] for i in row_ids]], [item_units[i] for i in row_ids])
        rankers = [EmbeddingUnitRanker(embedder), ProfileBM25UnitRanker(_unit_profiles(catalog, items, tags)),
                   PrototypeUnitRanker(embedder, prototypes)]

    def relevance(req: Requirement, votes: VoteResult | None) -> Sequence[RelevanceJudge]:
        voted = [catalog.by_id(u) for u in votes.units] if votes else []
        unit_terms = sorted({t for terms in exclusive_unit_terms(voted).values() for t in terms})
        top_items = frozenset(index.items_with_units(votes.units[:TOP_VOTED_UNITS])) if votes else frozenset()
        evidence = TopicEvidence(req, embedder, matrix, background_rows, postings, unit_terms, top_items)
        # The local voting judges each rank their top 100 units; an LLM judge names only the few tags
        # it chooses, which says nothing against the others: no veto after an LLM vote.
        unranked = UnrankedSubjects(votes, scientific_tags, unit_names) if votes and not jury.llm_judges else None
        return [*offline_relevance_jury(evidence, vectors, model, unranked), *llm_jury]
    progress("jury", 1, 1)

    def intrinsic(needed: Sequence[CorpusItem]) -> Mapping[str, tuple[float, float]]:
        return ensure_intrinsic_scores(components.corpus, components.perplexity, needed, show_progress=False).scores

    neighbours = NeighbourAnswers(index, items, row_of, matrix)

    def neighbour_answers(item: CorpusItem) -> list[str]:
        return neighbours(item.id, item_units.get(item.id, []), vector(item.id))


    world = BuildWorld(
        catalog=catalog, items=items, index=index, vector=vector,
        requirement_vector=lambda req: embedder.encode([req.text])[0],
        all_item_similarity=lambda v: (order, matrix @ v),
        unit_rankers=rankers, relevance_jury=relevance, intrinsic=intrinsic,
        neighbour_answers=neighbour_answers, mcq_writer=writer, progress=progress,
        calibration=packaged_calibration(),
    )
    versions = {
        "n_items": len(items),
        "items_sha256": corpus_digest(items_list),
        "tagger_version": current["tagger_version"],
        "embedder": embedder.name,
        "hardness_model": components.perplexity.name,
        "units_version": catalog.version,
        "n_units": len(catalog),
        "relevance_model": model.trained_on,
    }
    return world, versions


class _VectorView(Mapping[str, np.ndarray]):
    """Read-only id -> embedding view over the stored matrix, without copying it."""

    def __init__(self, row_of: dict[str, int], matrix: np.ndarray) -> None:
        self._row_of, self._matrix = row_of, matrix

    def __getitem__(self, key: str) -> np.ndarray:
        return np.asarray(self._matrix[self._row_of[key]])

    def __iter__(self) -> Iterator[str]:
        return iter(self._row_of)

    def __len__(self) -> int:
        return len(self._row_of)


def _unit_profiles(catalog: UnitCatalog, items: Mapping[str, CorpusItem],
                   tags: Mapping[str, list[tuple[str, float]]]) -> dict[str, str]:
    """Unit id -> its name and keywords followed by the questions of its highest-scoring items."""
    by_unit: dict[str, list[tuple[float, str]]] = {}
    for item_id, units in tags.items():
        if item_id not in items:
            continue
        for unit_id, score in units:
            by_unit.setdefault(unit_id, []).append((-score, item_id))
    profiles = {}
    for unit in catalog.scientific():
        best = sorted(by_unit.get(unit.id, []))[:PROFILE_ITEMS]
        profiles[unit.id] = "\n".join([unit.describe(), *(items[i].question for _, i in best)])
    return profiles
