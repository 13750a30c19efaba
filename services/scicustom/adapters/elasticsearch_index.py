"""The SearchIndex port on Elasticsearch (official `elasticsearch` client, 8.x/9.x servers).

One document per corpus item: `id` (keyword), `units` (keyword array), `text`, `hardness`,
`quality` and `embedding` (dense_vector, cosine, float HNSW). The catalog's unit ids and the
embedding size live in the mapping's `_meta`, so `open` needs nothing else.

Candidate order. The paper's order (more shared voted units, then lower mean consensus rank of
the shared units, then item id) depends only on which voted units an item shares. With K voted
units there are 2^K - 1 possible shared sets; the client ranks all of them with the core's own
`order_candidates` (so float rounding of mean ranks is the embedded path's, bit for bit) and sends
that table. Elasticsearch then computes each item's shared set as a bitmask (a function_score sum
of 2^i per voted unit, exact in float32 up to 2^24), maps it through the table in a script_score,
sorts by that score and then by id, and pages with search_after. The client only converts hits.
The table has 2^K entries, so K is capped at 12 voted units (the paper's K1 is 10): 4,096 entries
keep a request under 30 KB, and noida-db, which copies script params per document, answers a full
candidate list of a few thousand items in about 2 s at K = 12 (0.5 s at K = 10, 9 s at K = 14).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

import numpy as np
from elasticsearch import Elasticsearch, helpers

from scicustom.adapters.candidate_query import check_cursor, check_page, distinct_voted_units
from scicustom.adapters.indexed_items import check_vector, checked_items
from scicustom.core.build.candidates import Candidate, order_candidates
from scicustom.core.errors import InvalidInput
from scicustom.ports import IndexedItem

SCHEMA_VERSION = 1
MAX_VOTED_UNITS = 12
_TABLE_SCRIPT = "return params.table[(int) _score];"
_COSINE_SCRIPT = "cosineSimilarity(params.query, 'embedding') + 1.0"
_BY_SCORE_THEN_ID = [{"_score": {"order": "desc"}}, {"id": {"order": "asc"}}]


def index_mapping(unit_ids: Sequence[str], dims: int) -> dict[str, Any]:
    return {
        "dynamic": "strict",
        "_meta": {"schema": SCHEMA_VERSION, "unit_ids": list(unit_ids), "dims": dims},
        "properties": {
            "id": {"type": "keyword"},
            "units": {"type": "keyword"},
            "text": {"type": "text"},
            "hardness": {"type": "double"},
            "quality": {"type": "double"},
            # Float HNSW, not the int8-quantised default: kNN scores stay those of the embeddings.
            "embedding": {"type": "dense_vector", "dims": dims, "index": True, "similarity": "cosine",
                          "index_options": {"type": "hnsw"}},
        },
    }


class _SubsetTable:
    """Every non-empty subset of the voted units, ranked by the core's candidate order."""

    def __init__(self, voted: Sequence[str], consensus: Mapping[str, float]) -> None:
        self.bit = {u: 1 << i for i, u in enumerate(voted)}
        subsets = {str(mask): [u for u in voted if mask & self.bit[u]] for mask in range(1, 1 << len(voted))}
        ordered = order_candidates(subsets, consensus)
        # Equal (size, mean rank) ties in the core too, where the item id decides: equal score here.
        keys = list(dict.fromkeys((len(c.shared_units), c.mean_rank) for c in ordered))
        score_of_key = {key: len(keys) - rank for rank, key in enumerate(keys)}
        self.scores = [0] * (1 << len(voted))
        self.template: dict[int, Candidate] = {}
        for c in ordered:
            mask = int(c.item_id)
            self.scores[mask] = score_of_key[(len(c.shared_units), c.mean_rank)]
            self.template[mask] = c

    def mask_of(self, units: Sequence[str]) -> int:
        return sum(self.bit.get(u, 0) for u in set(units))

    def query(self) -> dict[str, Any]:
        bitmask = {"function_score": {
            "query": {"terms": {"units": list(self.bit)}},
            "functions": [{"filter": {"term": {"units": u}}, "weight": b} for u, b in self.bit.items()],
            "score_mode": "sum", "boost_mode": "replace"}}
        return {"script_score": {"query": bitmask,
                                 "script": {"source": _TABLE_SCRIPT, "params": {"table": self.scores}}}}


class ElasticsearchSearchIndex:
    def __init__(self, client: Elasticsearch, index: str, unit_ids: Sequence[str], dims: int, *,
                 page_size: int = 1000, bulk_chunk: int = 500) -> None:
        self.client = client
        self.index = index
        self.unit_ids = list(unit_ids)
        self._unit_set = set(self.unit_ids)
        self.dims = dims
        self.page_size = page_size
        self.bulk_chunk = bulk_chunk

    @classmethod
    def create(cls, client: Elasticsearch, index: str, unit_ids: Sequence[str], dims: int, *,
               shards: int = 1, replicas: int = 0, page_size: int = 1000) -> ElasticsearchSearchIndex:
        """Creates the index, or opens it when it exists with the same units and dimensions."""
        if client.indices.exists(index=index):
            existing = cls.open(client, index, page_size=page_size)
            if existing.unit_ids != list(unit_ids) or existing.dims != dims:
                raise ValueError(f"index {index} exists with other units or dimensions; use another name")
            return existing
        client.indices.create(index=index, mappings=index_mapping(unit_ids, dims),
                              settings={"number_of_shards": shards, "number_of_replicas": replicas})
        return cls(client, index, unit_ids, dims, page_size=page_size)

    @classmethod
    def open(cls, client: Elasticsearch, index: str, *, page_size: int = 1000) -> ElasticsearchSearchIndex:
        meta = client.indices.get_mapping(index=index)[index]["mappings"].get("_meta", {})
        if meta.get("schema") != SCHEMA_VERSION:
            raise ValueError(f"index {index} is not a scicustom search index of schema {SCHEMA_VERSION}")
        return cls(client, index, meta["unit_ids"], int(meta["dims"]), page_size=page_size)

    def delete_index(self) -> None:
        self.client.indices.delete(index=self.index, ignore_unavailable=True)

    # writing --------------------------------------------------------------------------------------
    def index_items(self, items: Sequence[IndexedItem]) -> int:
        checked = checked_items(items, self._unit_set, self.dims)
        actions = ({"_op_type": "index", "_index": self.index, "_id": item.id,
                    "_source": {"id": item.id, "units": list(item.units), "text": item.text,
                                "hardness": None if item.hardness is None else float(item.hardness),
                                "quality": float(item.quality),
                                "embedding": item.embedding.tolist()}}
                   for item in checked)
        helpers.bulk(self.client, actions, chunk_size=self.bulk_chunk, raise_on_error=True)
        self.client.indices.refresh(index=self.index)
        return len(checked)

    def delete_items(self, item_ids: Sequence[str]) -> int:
        ids = list(dict.fromkeys(item_ids))
        if not ids:
            return 0
        actions = ({"_op_type": "delete", "_index": self.index, "_id": i} for i in ids)
        # A missing id is a 404 per action: not an error here (deleting is idempotent).
        removed, _ = helpers.bulk(self.client, actions, chunk_size=self.bulk_chunk, raise_on_error=False,
                                  raise_on_exception=True)
        self.client.indices.refresh(index=self.index)
        return int(removed)

    # reading --------------------------------------------------------------------------------------
    def _hits(self, query: dict[str, Any], sort: list[dict[str, Any]], fields: list[str],
              total: int | None = None, search_after: list[Any] | None = None) -> Iterator[dict[str, Any]]:
        """Hits in sort order with the `_source` `fields`, page by page with search_after, at most `total`."""
        source: bool | dict[str, list[str]] = {"includes": fields} if fields else False
        remaining = total
        while remaining is None or remaining > 0:
            size = self.page_size if remaining is None else min(self.page_size, remaining)
            response = self.client.search(index=self.index, query=query, sort=sort, size=size, source=source,
                                          search_after=search_after, track_total_hits=False)
            hits = response["hits"]["hits"]
            yield from hits
            if len(hits) < size:
                return
            search_after = hits[-1]["sort"]
            if remaining is not None:
                remaining -= len(hits)

    def item_ids(self) -> list[str]:
        return [h["_id"] for h in self._hits({"match_all": {}}, [{"id": {"order": "asc"}}], [])]

    def items_with_units(self, unit_ids: Sequence[str]) -> dict[str, list[str]]:
        if not unit_ids:
            return {}
        shared = {}
        for hit in self._hits({"terms": {"units": list(dict.fromkeys(unit_ids))}}, [{"id": {"order": "asc"}}],
                              ["units"]):
            carried = set(hit["_source"]["units"])
            shared[hit["_id"]] = [u for u in unit_ids if u in carried]
        return shared

    def unit_counts(self) -> dict[str, int]:
        response = self.client.search(index=self.index, size=0, track_total_hits=False, aggs={
            "units": {"terms": {"field": "units", "size": max(len(self.unit_ids), 1)}}})
        counts = dict.fromkeys(self.unit_ids, 0)
        for bucket in response["aggregations"]["units"]["buckets"]:
            counts[bucket["key"]] = int(bucket["doc_count"])
        return counts

    def ordered_candidates(self, voted_units: Sequence[str], consensus: Mapping[str, float], *,
                           limit: int | None = None, after: Candidate | None = None) -> list[Candidate]:
        voted = distinct_voted_units(voted_units, consensus)
        check_page(limit)
        if after is not None:
            check_cursor(after, voted, consensus)
        if len(voted) > MAX_VOTED_UNITS:
            raise InvalidInput("voted_units", f"at most {MAX_VOTED_UNITS} distinct voted units "
                                              f"on Elasticsearch, got {len(voted)}")
        if not voted or limit == 0:
            return []
        table = _SubsetTable(voted, consensus)
        search_after = None
        if after is not None:
            search_after = [table.scores[table.mask_of(after.shared_units)], after.item_id]
        candidates = []
        for hit in self._hits(table.query(), _BY_SCORE_THEN_ID, ["units"], limit, search_after):
            mask = table.mask_of(hit["_source"]["units"])
            if hit["_score"] != table.scores[mask]:  # a server that scores otherwise must not pass silently
                raise RuntimeError(f"Elasticsearch scored {hit['_id']} {hit['_score']}, "
                                   f"its shared units give {table.scores[mask]}")
            template = table.template[mask]
            candidates.append(Candidate(hit["_id"], template.shared_units, template.mean_rank))
        return candidates

    def nearest(self, vector: np.ndarray, k: int) -> list[tuple[str, float]]:
        """Exact top-k by cosine: a brute-force script_score over every item, as ES advises for exact kNN."""
        query_vector = self._query_vector(vector, k)
        if k == 0:
            return []
        query = {"script_score": {"query": {"match_all": {}},
                                  "script": {"source": _COSINE_SCRIPT, "params": {"query": query_vector}}}}
        return [(h["_id"], h["_score"] - 1.0) for h in self._hits(query, _BY_SCORE_THEN_ID, [], k)]

    def approximate_nearest(self, vector: np.ndarray, k: int, num_candidates: int | None = None) -> list[
            tuple[str, float]]:
        """Top-k by cosine from the HNSW graph (Elasticsearch's kNN search): fast, may miss a few."""
        query_vector = self._query_vector(vector, k)
        if k == 0:
            return []
        candidates = min(max(num_candidates or 0, 10 * k, 100), 10_000)
        response = self.client.search(index=self.index, size=k, source=False, knn={
            "field": "embedding", "query_vector": query_vector, "k": k, "num_candidates": max(candidates, k)})
        # Cosine kNN scores are (1 + cos) / 2.
        scored = [(h["_id"], 2.0 * h["_score"] - 1.0) for h in response["hits"]["hits"]]
        return sorted(scored, key=lambda pair: (-pair[1], pair[0]))

    def _query_vector(self, vector: np.ndarray, k: int) -> list[float]:
        if k < 0:
            raise ValueError("k must be >= 0")
        query = np.asarray(vector, dtype=np.float32).reshape(-1)
        check_vector(query, self.dims, "query")
        return [float(x) for x in query]
