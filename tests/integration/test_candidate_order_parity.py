"""The Elasticsearch candidate order equals the embedded order exactly, and kNN agrees.

Two data sets: a deterministic synthetic corpus of 6,000 items over 120 units with skewed unit
popularity, and a third of the real corpus of `make setup` (its stored tags and MiniLM embeddings, in
a SparseUnitIndex as `corpus tag` builds one). Votes come from `aggregate_votes` over simulated juries
of 3-7 judges, so consensus ranks are fractions like 7/3 whose float sums would round differently for
equal means; the core compares them exactly, so such items tie and the id decides, in both paths.
"""

from __future__ import annotations

import itertools
import json
import uuid
from fractions import Fraction

import numpy as np
import pytest
from elasticsearch import Elasticsearch

from scicustom.adapters.elasticsearch_index import MAX_VOTED_UNITS, ElasticsearchSearchIndex
from scicustom.adapters.embedded_search_index import EmbeddedSearchIndex
from scicustom.adapters.embedded_vector_index import EmbeddedVectorIndex
from scicustom.adapters.packaged_models import MINILM_NAME
from scicustom.adapters.sparse_unit_index import SparseUnitIndex
from scicustom.app.index_keys import CURRENT_INDEX_KEY
from scicustom.bootstrap import Context
from scicustom.core.build.candidates import Candidate
from scicustom.core.build.vote import VoteResult, aggregate_votes
from scicustom.core.errors import PreconditionFailed
from scicustom.core.intrinsic import quality_score
from scicustom.ports import IndexedItem

pytestmark = pytest.mark.integration

SUBSAMPLE = 3  # of the real corpus: every third item
SYNTHETIC_ITEMS = 6000
SYNTHETIC_UNITS = 120
DIMS = 32


@pytest.fixture(scope="module")
def es_client(elasticsearch_server):
    client = Elasticsearch(elasticsearch_server.url, request_timeout=120)
    yield client
    client.close()


def _es_index(client, unit_ids, dims, items):
    index = ElasticsearchSearchIndex.create(client, f"parity-{uuid.uuid4().hex[:12]}", unit_ids, dims)
    index.index_items(items)
    return index


def _synthetic_items() -> tuple[list[str], list[IndexedItem]]:
    rng = np.random.default_rng(20240611)
    units = [f"ku_{i:03d}" for i in range(SYNTHETIC_UNITS)]
    popularity = 1.0 / np.arange(1, SYNTHETIC_UNITS + 1) ** 0.8
    popularity /= popularity.sum()
    items = []
    for i in range(SYNTHETIC_ITEMS):
        count = int(rng.integers(0, 6))
        chosen = tuple(units[j] for j in rng.choice(SYNTHETIC_UNITS, size=count, replace=False, p=popularity))
        items.append(IndexedItem(f"syn-{rng.integers(16**8):08x}-{i}", chosen, f"synthetic question {i}",
                                 hardness=float(rng.gamma(2.0, 3.0)), quality=float(rng.uniform(0, 100)),
                                 embedding=rng.standard_normal(DIMS).astype(np.float32)))
    return units, items


def _juries(units: list[str], pool: list[str], seed: int, draws: int) -> list[VoteResult]:
    """Simulated juries: each judge ranks a random 30 of `pool` (units with items), best first."""
    rng = np.random.default_rng(seed)
    results = []
    for draw in range(draws):
        judges = [3, 5, 7, 6][draw % 4]
        k1 = [10, MAX_VOTED_UNITS, 1, 10, 5][draw % 5]
        rankings = {f"judge-{j}": [pool[i] for i in rng.permutation(len(pool))[:30]] for j in range(judges)}
        results.append(aggregate_votes(rankings, units, k1))
    return results


def _exact_mean(candidate: Candidate, votes: VoteResult) -> Fraction:
    judges = len(votes.per_judge)
    ranks = [Fraction(round(votes.consensus[u] * judges), judges) for u in candidate.shared_units]
    return sum(ranks, Fraction(0)) / len(ranks)


def _walk_pages(index, votes: VoteResult, page: int) -> list[Candidate]:
    out: list[Candidate] = []
    while True:
        chunk = index.ordered_candidates(list(votes.units), votes.consensus, limit=page,
                                         after=out[-1] if out else None)
        out.extend(chunk)
        if len(chunk) < page:
            return out


@pytest.fixture(scope="module")
def synthetic(es_client):
    units, items = _synthetic_items()
    embedded = EmbeddedSearchIndex(units, DIMS)
    embedded.index_items(items)
    es = _es_index(es_client, units, DIMS, items)
    yield units, embedded, es
    es.delete_index()


def test_synthetic_corpus_order_is_identical(synthetic):
    units, embedded, es = synthetic
    pool = [u for u, n in sorted(embedded.unit_counts().items(), key=lambda kv: -kv[1])[:60]]
    id_ties = 0
    for votes in _juries(units, pool, seed=7, draws=10):
        expected = embedded.ordered_candidates(list(votes.units), votes.consensus)
        assert expected, "a jury voted for units no item carries"
        assert es.ordered_candidates(list(votes.units), votes.consensus) == expected
        for a, b in itertools.pairwise(expected):
            same_size = len(a.shared_units) == len(b.shared_units)
            id_ties += same_size and a.mean_rank == b.mean_rank
            # Equal exact means always tie: they are never split by float rounding.
            assert not (same_size and a.mean_rank != b.mean_rank and _exact_mean(a, votes) == _exact_mean(b, votes))
    assert id_ties > 100


def test_synthetic_pages_join_to_the_whole_order(synthetic):
    units, embedded, es = synthetic
    pool = [u for u, n in sorted(embedded.unit_counts().items(), key=lambda kv: -kv[1])[:60]]
    votes = _juries(units, pool, seed=11, draws=1)[0]
    whole = embedded.ordered_candidates(list(votes.units), votes.consensus)
    assert len(whole) > 1000
    assert _walk_pages(es, votes, page=700) == whole
    assert es.ordered_candidates(list(votes.units), votes.consensus, limit=50, after=whole[99]) == whole[100:150]


def test_synthetic_membership_and_knn_agree(synthetic):
    units, embedded, es = synthetic
    assert es.item_ids() == embedded.item_ids()
    assert es.unit_counts() == embedded.unit_counts()
    assert es.items_with_units(units[:7]) == embedded.items_with_units(units[:7])
    rng = np.random.default_rng(5)
    for _ in range(3):
        query = rng.standard_normal(DIMS)
        want, got = embedded.nearest(query, 100), es.nearest(query, 100)
        assert_same_ranking(got[:90], want)
        approximate = {i for i, _ in es.approximate_nearest(query, 20)}
        assert len(approximate & {i for i, _ in want[:20]}) >= 18


@pytest.fixture(scope="module")
def real_corpus(es_client):
    ctx = Context.from_environment()
    store = ctx.store
    if not store.exists(CURRENT_INDEX_KEY):
        raise PreconditionFailed(f"no tagged corpus under {ctx.settings.home}: run `make setup` first")
    current = json.loads(store.get_bytes(CURRENT_INDEX_KEY))
    sparse = SparseUnitIndex.load(store, current["index_key"])
    tags = ctx.corpus.load_tags(current["tagger_version"])
    corpus_items = ctx.corpus.load_items()
    questions = {item.id: item.question for item in corpus_items}
    answers = {item.id: item.answer for item in corpus_items}
    ids, vectors = ctx.corpus.load_embeddings(MINILM_NAME)
    row = {item_id: r for r, item_id in enumerate(ids)}
    unit_ids = list(sparse.unit_counts())
    # Every third item of the stored index: the real tags' skew and ties at a third of the indexing and
    # query time (the whole corpus took 160 s of the suite). The embedded side is the same adapter
    # built from those items' stored tags, as `corpus tag` builds it from all of them.
    indexed = sparse.item_ids()[::SUBSAMPLE]
    sub = SparseUnitIndex.from_tags({i: tags[i] for i in indexed}, unit_ids)
    items = [IndexedItem(i, tuple(u for u, _ in tags[i]), questions[i], hardness=0.0,
                         quality=quality_score(questions[i], answers[i]), embedding=vectors[row[i]])
             for i in indexed]
    es = _es_index(es_client, unit_ids, vectors.shape[1], items)
    yield sub, es, indexed, vectors[[row[i] for i in indexed]]
    es.delete_index()


@pytest.mark.slow
def test_real_corpus_order_is_identical_to_the_sparse_index(real_corpus):
    sparse, es, _, _ = real_corpus
    counts = sparse.unit_counts()
    assert es.unit_counts() == counts
    assert es.item_ids() == sparse.item_ids()
    pool = [u for u, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])) if n > 0][:80]
    for votes in _juries(list(counts), pool, seed=3, draws=8):
        expected = sparse.ordered_candidates(list(votes.units), votes.consensus)
        assert expected
        assert es.ordered_candidates(list(votes.units), votes.consensus) == expected
    assert _walk_pages(es, votes, page=150) == expected


@pytest.mark.slow
def test_real_corpus_knn_matches_the_embedded_scan(real_corpus):
    _, es, ids, vectors = real_corpus
    embedded = EmbeddedVectorIndex(ids, vectors)
    for row in (0, len(ids) // 2, len(ids) - 1):
        query = vectors[row] + 0.5 * vectors[(row + 7) % len(ids)]
        want, got = embedded.nearest(query, 60), es.nearest(query, 60)
        assert_same_ranking(got[:50], want)


def assert_same_ranking(got: list[tuple[str, float]], want: list[tuple[str, float]], tol: float = 1e-5) -> None:
    """Equal cosines, and equal ids except where two cosines are within the server's float32 score."""
    assert [s for _, s in got] == pytest.approx([s for _, s in want[:len(got)]], abs=tol)
    want_score = dict(want)
    for k, (item_id, _) in enumerate(got):
        if item_id != want[k][0]:
            assert item_id in want_score and abs(want_score[item_id] - want[k][1]) < tol
