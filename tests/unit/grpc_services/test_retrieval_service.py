"""RetrievalService over a loopback channel on a tiny tagged home: ordered candidates with a cursor,
and kNN search."""

from __future__ import annotations

import grpc
import numpy as np
import pytest
from grpc_health.v1 import health_pb2
from hypothesis import given, settings
from hypothesis import strategies as st

from scicustom.core.build.candidates import order_candidates
from scicustom.retrieval.servicer import SERVICE_NAME, binding
from scicustom.retrieval.v1 import retrieval_pb2 as pb
from scicustom.retrieval.v1 import retrieval_pb2_grpc as pb_grpc
from tests.support.grpc_loopback import health_status, loopback, reflected_services, rpc_error
from tests.unit.grpc_services.corpus_home import corpus_items, empty_home, item_vectors, tagged_home

VOTED = [pb.VotedUnit(unit_id="u1", consensus_rank=1.0), pb.VotedUnit(unit_id="u4", consensus_rank=2.0)]


@pytest.fixture(scope="module")
def served(tmp_path_factory):
    ctx = tagged_home(tmp_path_factory.mktemp("retrieval"))
    with loopback([binding(ctx)]) as channel:
        yield pb_grpc.RetrievalServiceStub(channel), channel, ctx


def _all_pages(stub, voted, page_size: int) -> tuple[list[pb.Candidate], int]:
    out, token, pages = [], "", 0
    while True:
        page = stub.Candidates(pb.CandidatesRequest(voted_units=voted, page_size=page_size, page_token=token),
                               timeout=10)
        out.extend(page.candidates)
        pages += 1
        token = page.next_page_token
        if not token:
            return out, pages


def test_health_and_reflection_name_the_service(served):
    _, channel, _ = served
    assert health_status(channel, SERVICE_NAME) == health_pb2.HealthCheckResponse.SERVING
    assert SERVICE_NAME in reflected_services(channel)


def test_candidates_come_in_the_papers_order(served):
    stub, _, _ = served
    _, tags = corpus_items()
    both = sorted(i for i, t in tags.items() if [u for u, _ in t] == ["u1", "u4"])
    virology_only = sorted(i for i, t in tags.items() if [u for u, _ in t] == ["u1"])
    immune = sorted(i for i, t in tags.items() if [u for u, _ in t] == ["u4"])
    assert (len(both), len(virology_only), len(immune)) == (12, 12, 24)
    response = stub.Candidates(pb.CandidatesRequest(voted_units=VOTED), timeout=10)
    got = [(c.item_id, list(c.shared_unit_ids), c.mean_consensus_rank, c.position) for c in response.candidates]
    # Two shared units first (mean 1.5), then one: Virology (rank 1) before Immune system (rank 2); ids break ties.
    expected = ([(i, ["u1", "u4"], 1.5) for i in both] + [(i, ["u1"], 1.0) for i in virology_only]
                + [(i, ["u4"], 2.0) for i in immune])
    assert got == [(*row, position) for position, row in enumerate(expected)]
    assert response.next_page_token == ""


@pytest.mark.parametrize(("page_size", "pages"), [(10, 5), (12, 4), (48, 1), (1, 48)])
def test_pages_join_into_the_whole_list(served, page_size, pages):
    stub, _, _ = served
    whole = stub.Candidates(pb.CandidatesRequest(voted_units=VOTED, page_size=1000), timeout=10).candidates
    joined, n_pages = _all_pages(stub, VOTED, page_size)
    assert joined == list(whole) and n_pages == pages
    assert [c.position for c in joined] == list(range(48))


@settings(max_examples=20, deadline=None)
@given(st.lists(st.sampled_from(["u1", "u2", "u3", "u4"]), min_size=1, max_size=4, unique=True),
       st.lists(st.sampled_from([1.0, 1.5, 2.0, 7 / 3, 3.0]), min_size=4, max_size=4),
       st.integers(min_value=1, max_value=40))
def test_paging_equals_the_core_order_for_any_vote(served, units, ranks, page_size):
    stub, _, ctx = served
    consensus = dict(zip(units, ranks, strict=False))
    voted = [pb.VotedUnit(unit_id=u, consensus_rank=consensus[u]) for u in units]
    joined, _ = _all_pages(stub, voted, page_size)
    expected = order_candidates(ctx.unit_index.items_with_units(units), consensus)
    assert [(c.item_id, tuple(c.shared_unit_ids)) for c in joined] == [(c.item_id, c.shared_units) for c in expected]
    assert [c.mean_consensus_rank for c in joined] == pytest.approx([float(c.mean_rank) for c in expected])


def test_a_token_only_works_for_the_query_it_came_from(served):
    stub, _, _ = served
    token = stub.Candidates(pb.CandidatesRequest(voted_units=VOTED, page_size=5), timeout=10).next_page_token
    other = [pb.VotedUnit(unit_id="u1", consensus_rank=1.0), pb.VotedUnit(unit_id="u4", consensus_rank=3.0)]
    for voted, bad_token in ((other, token), (VOTED, "bm90IGEgdG9rZW4="), (VOTED, "%%%"), (VOTED, token[:-4])):
        error = rpc_error(lambda v=voted, t=bad_token: stub.Candidates(
            pb.CandidatesRequest(voted_units=v, page_size=5, page_token=t), timeout=10))
        assert (error.code(), error.details()) == (
            grpc.StatusCode.INVALID_ARGUMENT, "page_token: is not a token this service returned for these voted units")


@pytest.mark.parametrize(("voted", "page_size", "details"), [
    ([], 0, "voted_units: is empty"),
    ([pb.VotedUnit(unit_id="zz", consensus_rank=1)], 0, "voted_units[0].unit_id: 'zz' is not a unit of the unit set"),
    ([VOTED[0], VOTED[0]], 0, "voted_units[1].unit_id: 'u1' repeats"),
    ([VOTED[0], pb.VotedUnit(unit_id="u4", consensus_rank=0.5)], 0,
     "voted_units[1].consensus_rank: must be a finite rank >= 1"),
    ([pb.VotedUnit(unit_id="u4", consensus_rank=float("nan"))], 0,
     "voted_units[0].consensus_rank: must be a finite rank >= 1"),
    (VOTED, 1001, "page_size: 1001 is above the limit 1000"),
])
def test_bad_candidate_requests_name_the_field(served, voted, page_size, details):
    stub, _, _ = served
    error = rpc_error(lambda: stub.Candidates(pb.CandidatesRequest(voted_units=voted, page_size=page_size),
                                              timeout=10))
    assert (error.code(), error.details()) == (grpc.StatusCode.INVALID_ARGUMENT, details)


def test_search_returns_the_nearest_items_by_cosine(served):
    stub, _, ctx = served
    vectors = item_vectors(ctx)
    query = ctx.embedder.encode(["viral genome of a virus"])[0]
    expected = sorted(((i, float(v @ query)) for i, v in vectors.items()), key=lambda p: (-p[1], p[0]))
    response = stub.Search(pb.SearchRequest(text="viral genome of a virus", k=5), timeout=10)
    assert response.embedder == "hashing-test"
    assert [h.item_id for h in response.hits] == [i for i, _ in expected[:5]]
    assert [h.cosine for h in response.hits] == pytest.approx([c for _, c in expected[:5]], abs=1e-6)
    assert len(stub.Search(pb.SearchRequest(text="virus"), timeout=10).hits) == 10
    assert np.all(np.diff([h.cosine for h in response.hits]) <= 0)


@pytest.mark.parametrize(("request_", "details"), [
    (pb.SearchRequest(text=" "), "text: is empty"),
    (pb.SearchRequest(text="x" * 8001), "text: has 8001 characters, above the limit 8000"),
    (pb.SearchRequest(text="virus", k=1001), "k: 1001 is above the limit 1000"),
])
def test_bad_search_requests_name_the_field(served, request_, details):
    stub, _, _ = served
    error = rpc_error(lambda: stub.Search(request_, timeout=10))
    assert (error.code(), error.details()) == (grpc.StatusCode.INVALID_ARGUMENT, details)


def test_an_untagged_home_is_a_failed_precondition(tmp_path):
    with loopback([binding(empty_home(tmp_path))]) as channel:
        stub = pb_grpc.RetrievalServiceStub(channel)
        candidates = rpc_error(lambda: stub.Candidates(pb.CandidatesRequest(voted_units=VOTED), timeout=10))
        search = rpc_error(lambda: stub.Search(pb.SearchRequest(text="virus"), timeout=10))
    assert (candidates.code(), candidates.details()) == (
        grpc.StatusCode.FAILED_PRECONDITION, "the corpus is not tagged yet; run `scicustom corpus tag`")
    assert (search.code(), search.details()) == (
        grpc.StatusCode.FAILED_PRECONDITION, "no item is embedded yet; run `scicustom corpus tag`")
