"""SelectorService over a loopback channel: exactly `select_proxy_subset` on the stored embeddings."""

from __future__ import annotations

import grpc
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scicustom.core.build.proxy_subset import select_proxy_subset
from scicustom.core.intrinsic import quality_score, scored_text_digest
from scicustom.selector.servicer import binding
from scicustom.selector.v1 import selector_pb2 as pb
from scicustom.selector.v1 import selector_pb2_grpc as pb_grpc
from tests.support.grpc_loopback import invalid_field, loopback, rpc_error
from tests.unit.grpc_scorers_selector_generator.corpus_world import empty_context, tagged_context


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    ctx = tagged_context(tmp_path_factory.mktemp("selector"))
    ids, matrix = ctx.corpus.load_embeddings(ctx.embedder.name)
    with loopback([binding(ctx)]) as channel:
        yield pb_grpc.SelectorServiceStub(channel), {i: matrix[r] for r, i in enumerate(ids)}


def _scores(ids):
    """Made-up scores with a spread: hardness 1.5..~60, quality -20..~80."""
    rng = np.random.default_rng(len(ids))
    return rng.uniform(1.5, 60.0, len(ids)), rng.uniform(-20.0, 80.0, len(ids))


def _request(ids, hardness=None, quality=None, **kwargs):
    if hardness is None:
        items = [pb.ScoredItem(id=i) for i in ids]
    else:
        items = [pb.ScoredItem(id=i, hardness=h, quality=q) for i, h, q in zip(ids, hardness, quality, strict=True)]
    return pb.SelectProxySubsetRequest(items=items, **kwargs)


def test_given_scores_select_exactly_what_the_core_selects(world):
    stub, vectors = world
    ids = sorted(vectors)[5:55]
    hardness, quality = _scores(ids)
    response = stub.SelectProxySubset(_request(ids, hardness, quality, k2=8, samples=30, seed=7), timeout=30)
    expected = select_proxy_subset(np.stack([vectors[i] for i in ids]), hardness, quality, 8, 30, 7)
    assert [c.position for c in response.chosen] == list(expected.indices)
    assert [c.id for c in response.chosen] == [ids[i] for i in expected.indices]
    assert [(c.hardness, c.quality) for c in response.chosen] == [(hardness[i], quality[i]) for i in expected.indices]
    assert (response.w1_hardness, response.w1_quality) == (expected.w1_hardness, expected.w1_quality)
    assert response.w1_total == pytest.approx(expected.w1_total, abs=1e-12)
    assert (response.clusters, response.subsets) == (8, 30) == (expected.n_clusters, expected.n_subsets)
    assert response.embedder == "hashing-test" and response.scores_source == "request"
    assert response.scores_computed == 0
    # The seed matters: another seed is another draw (same size).
    other = stub.SelectProxySubset(_request(ids, hardness, quality, k2=8, samples=30, seed=8), timeout=30)
    assert len(other.chosen) == 8


def test_stored_scores_are_computed_once_then_read(tmp_path):
    ctx = tagged_context(tmp_path)
    items = sorted(ctx.corpus.load_items(), key=lambda it: it.id)[:30]
    ids = [it.id for it in items]
    digest = {it.id: scored_text_digest(it.question, it.answer) for it in items}
    ctx.corpus.add_hardness(ctx.perplexity.name, {(ids[0], digest[ids[0]]): 3.25})  # already known: not recomputed
    with loopback([binding(ctx)]) as channel:
        stub = pb_grpc.SelectorServiceStub(channel)
        first = stub.SelectProxySubset(_request(ids, k2=5, samples=10, seed=1), timeout=30)
        assert first.scores_source == "stored" and first.scores_computed == 29
        assert [q for q, _ in ctx.perplexity.scored] == [it.question for it in items[1:]]
        cached = ctx.corpus.load_hardness(ctx.perplexity.name)
        stored = {it.id: (round(quality_score(it.question, it.answer), 6), cached[(it.id, digest[it.id])])
                  for it in items}
        assert stored[ids[0]][1] == 3.25
        assert stored[ids[3]][1] == round(1.0 + len(items[3].answer) / 7.0, 6)
        second = stub.SelectProxySubset(_request(ids, k2=5, samples=10, seed=1), timeout=30)
    assert second.scores_computed == 0 and list(second.chosen) == list(first.chosen)
    _, matrix = ctx.corpus.load_embeddings(ctx.embedder.name)
    row = {i: r for r, i in enumerate(ctx.corpus.load_embeddings(ctx.embedder.name)[0])}
    expected = select_proxy_subset(matrix[[row[i] for i in ids]], np.array([stored[i][1] for i in ids]),
                                   np.array([stored[i][0] for i in ids]), 5, 10, 1)
    assert [c.position for c in first.chosen] == list(expected.indices)
    assert first.w1_hardness == expected.w1_hardness and first.w1_quality == expected.w1_quality


def test_no_more_items_than_k2_keeps_them_all_and_defaults_apply(world):
    stub, vectors = world
    ids = sorted(vectors)[:12]
    hardness, quality = _scores(ids)
    response = stub.SelectProxySubset(_request(ids, hardness, quality), timeout=30)  # k2 0 -> 100
    assert [c.id for c in response.chosen] == ids
    assert (response.w1_total, response.clusters, response.subsets) == (0.0, 0, 0)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_any_request_matches_the_core(world, data):
    stub, vectors = world
    pool = sorted(vectors)
    ids = data.draw(st.lists(st.sampled_from(pool), min_size=1, max_size=25, unique=True))
    k2 = data.draw(st.integers(1, 12))
    samples = data.draw(st.integers(1, 15))
    seed = data.draw(st.integers(0, 2**32 - 1))
    hardness = np.array(data.draw(st.lists(st.floats(0.5, 1e4), min_size=len(ids), max_size=len(ids))))
    quality = np.array(data.draw(st.lists(st.floats(-100, 200), min_size=len(ids), max_size=len(ids))))
    response = stub.SelectProxySubset(_request(ids, hardness, quality, k2=k2, samples=samples, seed=seed),
                                      timeout=30)
    expected = select_proxy_subset(np.stack([vectors[i] for i in ids]), hardness, quality, k2, samples, seed)
    positions = [c.position for c in response.chosen]
    assert positions == list(expected.indices) == sorted(positions)
    if len(ids) <= k2:
        assert positions == list(range(len(ids))) and response.clusters == 0
    else:  # one item per non-empty cluster
        assert len(positions) == response.clusters <= k2
    assert (response.w1_hardness, response.w1_quality) == (expected.w1_hardness, expected.w1_quality)


def test_bad_requests_name_the_field(world):
    stub, vectors = world
    ids = sorted(vectors)[:4]
    call = stub.SelectProxySubset
    assert invalid_field(lambda: call(pb.SelectProxySubsetRequest(), timeout=5)) == "items: is empty"
    assert invalid_field(lambda: call(_request(ids, k2=1001), timeout=5)) == "k2: 1001 is above the limit 1000"
    assert invalid_field(lambda: call(_request(ids, samples=5000), timeout=5)).startswith("samples: ")
    repeated = _request([ids[0], ids[1], ids[0]])
    assert invalid_field(lambda: call(repeated, timeout=5)) == f"items[2].id: {ids[0]!r} repeats items[0]"
    mixed = _request(ids[:2], [2.0, 3.0], [10.0, 11.0])
    mixed.items[1].ClearField("quality")
    assert invalid_field(lambda: call(mixed, timeout=5)).startswith("items[1].quality: is missing")
    zero = _request(ids[:2], [2.0, 0.0], [10.0, 11.0])
    assert invalid_field(lambda: call(zero, timeout=5)).startswith("items[1].hardness: 0.0 is not a perplexity")
    nan = _request(ids[:2], [2.0, 3.0], [float("nan"), 11.0])
    assert invalid_field(lambda: call(nan, timeout=5)) == "items[0].quality: nan is not finite"
    blank = _request([ids[0], " "])
    assert invalid_field(lambda: call(blank, timeout=5)) == "items[1].id: is empty"


def test_unknown_items_and_an_empty_corpus(world, tmp_path):
    stub, vectors = world
    unknown = _request([sorted(vectors)[0], "nope-1"], [2.0, 3.0], [1.0, 2.0])
    error = rpc_error(lambda: stub.SelectProxySubset(unknown, timeout=5))
    assert error.code() == grpc.StatusCode.NOT_FOUND
    assert error.details() == "items[1].id: 'nope-1' is not a corpus item with a stored embedding"
    with loopback([binding(empty_context(tmp_path))]) as channel:
        error = rpc_error(lambda: pb_grpc.SelectorServiceStub(channel).SelectProxySubset(
            _request(["a"]), timeout=5))
    assert error.code() == grpc.StatusCode.FAILED_PRECONDITION
    assert "no corpus item is embedded" in error.details()
