"""SearchIndex contract on the embedded index and on Elasticsearch's client against noida-db."""

from __future__ import annotations

import uuid

import numpy as np
import pytest
from elasticsearch import Elasticsearch

from scicustom.adapters.elasticsearch_index import MAX_VOTED_UNITS, ElasticsearchSearchIndex, index_mapping
from scicustom.adapters.embedded_search_index import EmbeddedSearchIndex
from scicustom.core.errors import InvalidInput
from tests.support.contracts.search_index import CONSENSUS, SMALL, UNITS, SearchIndexContract

pytestmark = pytest.mark.integration


@pytest.fixture
def es_client(elasticsearch_server):
    client = Elasticsearch(elasticsearch_server.url, request_timeout=60)
    yield client
    client.close()


@pytest.fixture
def es_indexes(es_client):
    """A factory of fresh Elasticsearch indexes, all deleted afterwards."""
    made: list[ElasticsearchSearchIndex] = []

    def make(unit_ids, dims):
        index = ElasticsearchSearchIndex.create(es_client, f"contract-{uuid.uuid4().hex[:12]}", unit_ids, dims)
        made.append(index)
        return index

    yield make
    for index in made:
        index.delete_index()


class TestSearchIndexContract(SearchIndexContract):
    @pytest.fixture(params=["embedded", "elasticsearch"])
    def make_index(self, request):
        if request.param == "embedded":
            return EmbeddedSearchIndex
        return request.getfixturevalue("es_indexes")


def test_the_mapping_holds_units_text_scores_and_the_embedding(es_client, es_indexes):
    index = es_indexes(UNITS, 3)
    mapping = es_client.indices.get_mapping(index=index.index)[index.index]["mappings"]
    expected = index_mapping(UNITS, 3)
    assert mapping["_meta"] == expected["_meta"]
    properties = mapping["properties"]
    assert {name: properties[name]["type"] for name in properties} == {
        "id": "keyword", "units": "keyword", "text": "text", "hardness": "double", "quality": "double",
        "embedding": "dense_vector"}
    assert properties["embedding"]["dims"] == 3
    assert properties["embedding"]["similarity"] == "cosine"


def test_open_reads_units_and_dimensions_back_and_create_refuses_a_different_index(es_client, es_indexes):
    index = es_indexes(UNITS, 3)
    index.index_items(SMALL)
    reopened = ElasticsearchSearchIndex.open(es_client, index.index)
    assert (reopened.unit_ids, reopened.dims) == (UNITS, 3)
    assert reopened.item_ids() == index.item_ids()
    same = ElasticsearchSearchIndex.create(es_client, index.index, UNITS, 3)
    assert same.item_ids() == index.item_ids()
    with pytest.raises(ValueError, match="exists with other units"):
        ElasticsearchSearchIndex.create(es_client, index.index, UNITS, 4)


def test_stored_documents_keep_text_and_intrinsic_scores(es_client, es_indexes):
    index = es_indexes(UNITS, 3)
    index.index_items(SMALL)
    source = es_client.get(index=index.index, id="c")["_source"]
    assert source["units"] == ["u3", "u1"]
    assert source["text"] == "question c"
    assert (source["hardness"], source["quality"]) == (2.5, 60.0)
    assert source["embedding"] == [1.0, 1.0, 0.0]


def test_text_is_searchable_with_bm25_order(es_client, es_indexes):
    """BM25 scores differ from a real cluster by a constant factor: only the order is asserted."""
    index = es_indexes(UNITS, 3)
    index.index_items(SMALL)
    hits = es_client.search(index=index.index, query={"match": {"text": "question a"}},
                            sort=[{"_score": "desc"}, {"id": "asc"}], size=3)["hits"]["hits"]
    assert hits[0]["_id"] == "a"


def test_more_voted_units_than_a_request_can_carry_are_refused(es_indexes):
    units = [f"u{i}" for i in range(MAX_VOTED_UNITS + 1)]
    index = es_indexes(units, 3)
    with pytest.raises(InvalidInput) as refused:
        index.ordered_candidates(units, dict.fromkeys(units, 1.0))
    assert refused.value.field == "voted_units"
    assert index.ordered_candidates(units[:MAX_VOTED_UNITS], CONSENSUS | dict.fromkeys(units, 1.0)) == []


def test_pages_smaller_than_the_result_are_joined_in_order(es_client):
    name = f"paging-{uuid.uuid4().hex[:12]}"
    index = ElasticsearchSearchIndex.create(es_client, name, UNITS, 3, page_size=2)
    try:
        index.index_items(SMALL)
        embedded = EmbeddedSearchIndex(UNITS, 3)
        embedded.index_items(SMALL)
        assert index.item_ids() == embedded.item_ids()
        assert index.items_with_units(["u1", "u2", "u3"]) == embedded.items_with_units(["u1", "u2", "u3"])
        assert index.ordered_candidates(UNITS[:4], CONSENSUS) == embedded.ordered_candidates(UNITS[:4], CONSENSUS)
        got, want = index.nearest(np.array([1.0, 0.2, 0.1]), 5), embedded.nearest(np.array([1.0, 0.2, 0.1]), 5)
        assert [i for i, _ in got] == [i for i, _ in want] == ["a", "c", "e", "b", "d"]
        assert [s for _, s in got] == pytest.approx([s for _, s in want], abs=1e-6)
    finally:
        index.delete_index()
