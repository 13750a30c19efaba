"""Offline jury: local judges that differ in kind, so their votes are not one model's votes thrice.

Unit rankers (voting, section 2.4):
  minilm-units       cosine between the requirement and each unit's name (+ keywords) embedding
  bm25-profiles      BM25 of the requirement against unit profiles: name, keywords and the
                     questions of the corpus items the tagger put in the unit (lexical evidence)
  minilm-prototypes  cosine between the requirement and the centroid of the unit's items
                     (corpus-grounded semantic evidence)
Relevance judges (cutoff, Algorithm 2) are calibrated classifiers of (requirement, item). The two
similarity judges call an item relevant when its score exceeds the `quantile` of the same score
over a seeded random background sample of the corpus (more related than ~95% of corpus items);
they read the requirement's topic text, without its instructions and exclusions.
  minilm-item        cosine(requirement topic, item)
  bm25-item          BM25 of the requirement topic against the item's text
  top-units          the item's own units include one of the jury's top voted units: K1 units
                     always fill up with broad ones ("Chemical reaction" for pericyclic reactions),
                     and an item carrying only those is not specific to the requirement
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from scicustom.core.build.relevance import TOP_VOTED_UNITS
from scicustom.core.corpus_item import CorpusItem
from scicustom.core.lexical import BM25
from scicustom.core.requirement import Requirement
from scicustom.core.units import KnowledgeUnit
from scicustom.ports import Embedder

MAX_RANKED = 100  # the paper's judges return at most the top 100 tags
# An embedding judge abstains unless its best unit is a clear outlier among all units (z-score of
# the cosine). The 12 packaged requirements score 4.4-6.4 on MiniLM; nonsense and off-science text 2.9-3.4.
MIN_TOP_Z = 4.0


def _rank_by(scores: np.ndarray, candidates: Sequence[KnowledgeUnit], positive_only: bool,
             min_top_z: float | None = None) -> list[str]:
    if min_top_z is not None and len(scores) > 1:
        spread = float(scores.std())
        if spread == 0 or (float(scores.max()) - float(scores.mean())) / spread < min_top_z:
            return []
    order = np.argsort(-scores, kind="stable")
    ranked = [candidates[i].id for i in order if not positive_only or scores[i] > 0]
    return ranked[:MAX_RANKED]


class EmbeddingUnitRanker:
    kind = "local"

    def __init__(self, embedder: Embedder, name: str = "minilm-units", min_top_z: float | None = MIN_TOP_Z) -> None:
        self.name = name
        self._embedder = embedder
        self._min_top_z = min_top_z
        # Every vote ranks the same candidates (the catalog's scientific units), and encoding their 641
        # descriptions takes about 9 s on 2 cores: a world's ranker encodes them once for all its builds.
        self._encoded: tuple[tuple[str, ...], np.ndarray] | None = None
        self._lock = threading.Lock()

    def _unit_vectors(self, candidates: Sequence[KnowledgeUnit]) -> np.ndarray:
        ids = tuple(u.id for u in candidates)
        with self._lock:
            if self._encoded is None or self._encoded[0] != ids:
                self._encoded = (ids, self._embedder.encode([u.describe() for u in candidates]))
            return self._encoded[1]

    def rank_units(self, requirement: Requirement, candidates: Sequence[KnowledgeUnit]) -> list[str]:
        req = self._embedder.encode([requirement.topic_text])[0]
        units = self._unit_vectors(candidates)
        return _rank_by(units @ req, candidates, positive_only=False, min_top_z=self._min_top_z)


class ProfileBM25UnitRanker:
    kind = "local"

    def __init__(self, profiles: Mapping[str, str], name: str = "bm25-profiles") -> None:
        self.name = name
        self._profiles = profiles

    def rank_units(self, requirement: Requirement, candidates: Sequence[KnowledgeUnit]) -> list[str]:
        bm25 = BM25([self._profiles.get(u.id, u.describe()) for u in candidates])
        return _rank_by(bm25.scores(requirement.topic_text), candidates, positive_only=True)


class PrototypeUnitRanker:
    kind = "local"

    def __init__(self, embedder: Embedder, prototypes: Mapping[str, np.ndarray],
                 name: str = "minilm-prototypes", min_top_z: float | None = MIN_TOP_Z) -> None:
        self.name = name
        self._embedder = embedder
        self._min_top_z = min_top_z
        self._prototypes = prototypes

    def rank_units(self, requirement: Requirement, candidates: Sequence[KnowledgeUnit]) -> list[str]:
        req = self._embedder.encode([requirement.topic_text])[0]
        with_proto = [u for u in candidates if u.id in self._prototypes]
        if not with_proto:
            return []
        matrix = np.stack([self._prototypes[u.id] for u in with_proto])
        return _rank_by(matrix @ req, with_proto, positive_only=False, min_top_z=self._min_top_z)


def unit_prototypes(item_vectors: np.ndarray, item_units: Sequence[Sequence[str]]) -> dict[str, np.ndarray]:
    """Unit id -> L2-normalised mean embedding of the items tagged with it."""
    sums: dict[str, np.ndarray] = {}
    for vector, units in zip(item_vectors, item_units, strict=True):
        for unit in units:
            if unit in sums:
                sums[unit] = sums[unit] + vector
            else:
                sums[unit] = vector.astype(np.float64).copy()
    return {u: (s / np.linalg.norm(s)).astype(np.float32) for u, s in sums.items() if np.linalg.norm(s) > 0}


class ThresholdRelevanceJudge:
    """Relevant when score(item) > threshold; the threshold is the background quantile."""

    kind = "local"

    def __init__(self, name: str, score_fn: Callable[[CorpusItem], float], background_scores: np.ndarray,
                 quantile: float) -> None:
        if not 0.5 <= quantile < 1:
            raise ValueError("quantile must be in [0.5, 1)")
        self.name = name
        self._score = score_fn
        self.threshold = float(np.quantile(background_scores, quantile))

    def score(self, item: CorpusItem) -> float:
        return float(self._score(item))

    def is_relevant(self, requirement: Requirement, item: CorpusItem) -> bool:
        return self.score(item) > self.threshold


class TopUnitsJudge:
    """Relevant when the item carries one of the jury's most agreed-on units."""

    kind = "local"
    name = "top-units"

    def __init__(self, top_units: Sequence[str], item_units: Mapping[str, Sequence[str]]) -> None:
        self._top = frozenset(top_units)
        self._item_units = item_units

    def is_relevant(self, requirement: Requirement, item: CorpusItem) -> bool:
        return not self._top.isdisjoint(self._item_units.get(item.id, ()))


def local_relevance_jury(
    requirement: Requirement,
    embedder: Embedder,
    vectors: Mapping[str, np.ndarray],
    background: Sequence[CorpusItem],
    voted_units: Sequence[str],
    item_units: Mapping[str, Sequence[str]],
    quantile: float,
) -> list[ThresholdRelevanceJudge | TopUnitsJudge]:
    """The three relevance judges for one requirement; `voted_units` best first."""
    topic = requirement.topic_text
    req = embedder.encode([topic])[0]
    bm25 = BM25([it.text for it in background])

    def cosine_req(item: CorpusItem) -> float:
        return float(vectors[item.id] @ req)

    def lexical(item: CorpusItem) -> float:
        return bm25.score_text(topic, item.text)

    judges: list[ThresholdRelevanceJudge | TopUnitsJudge] = [
        ThresholdRelevanceJudge(name, fn, np.array([fn(it) for it in background]), quantile)
        for name, fn in (("minilm-item", cosine_req), ("bm25-item", lexical))
    ]
    judges.append(TopUnitsJudge(voted_units[:TOP_VOTED_UNITS], item_units))
    return judges
