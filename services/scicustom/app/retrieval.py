"""Retrieval (RetrievalService's use case): the paper's ordered candidates from the unit index, paged
by a cursor, and embedding kNN."""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from scicustom.app.components import Components
from scicustom.app.field_checks import bounded, checked_list, checked_text
from scicustom.core.build.candidates import Candidate, order_candidates
from scicustom.core.errors import InvalidInput

MAX_VOTED = 100
MAX_PAGE = 1000
DEFAULT_PAGE = 100
MAX_K = 1000
DEFAULT_K = 10
_BAD_TOKEN = "is not a token this service returned for these voted units"


@dataclass(frozen=True)
class VotedUnitInput:
    unit_id: str
    consensus_rank: float


@dataclass(frozen=True)
class CandidatePage:
    candidates: list[tuple[int, Candidate]]  # (position in the whole ordering, candidate)
    next_page_token: str                     # empty on the last page


@dataclass(frozen=True)
class SearchResult:
    hits: list[tuple[str, float]]  # (item id, cosine), nearest first
    embedder: str


def query_fingerprint(voted: Sequence[str], consensus: Mapping[str, float]) -> str:
    """Ties a page token to its query: the voted units in order and their exact consensus ranks."""
    canonical = json.dumps([[u, float(consensus[u]).hex()] for u in voted])
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def encode_token(fingerprint: str, last: Candidate, next_position: int) -> str:
    payload = {"q": fingerprint, "id": last.item_id, "units": list(last.shared_units), "pos": next_position}
    return base64.urlsafe_b64encode(json.dumps(payload, separators=(",", ":")).encode()).decode()


def decode_token(token: str, fingerprint: str, consensus: Mapping[str, float]) -> tuple[Candidate, int]:
    """The cursor (last candidate of the previous page) and the position of the next one."""
    try:
        payload = json.loads(base64.urlsafe_b64decode(token.encode()))
        item_id, units, position = str(payload["id"]), [str(u) for u in payload["units"]], int(payload["pos"])
        valid = payload["q"] == fingerprint and units and all(u in consensus for u in units) and position > 0
    except (binascii.Error, ValueError, KeyError, TypeError):
        valid = False
    if not valid:
        raise InvalidInput("page_token", _BAD_TOKEN)
    # The cursor's mean rank follows from its units and this query's ranks, as the index computes it.
    return order_candidates({item_id: units}, consensus)[0], position


def voted_units(given: Sequence[VotedUnitInput], catalog_ids: set[str]) -> tuple[list[str], dict[str, float]]:
    checked_list(given, "voted_units", MAX_VOTED)
    voted: list[str] = []
    consensus: dict[str, float] = {}
    for i, unit in enumerate(given):
        if unit.unit_id not in catalog_ids:
            raise InvalidInput(f"voted_units[{i}].unit_id", f"{unit.unit_id!r} is not a unit of the unit set")
        if unit.unit_id in consensus:
            raise InvalidInput(f"voted_units[{i}].unit_id", f"{unit.unit_id!r} repeats")
        if not math.isfinite(unit.consensus_rank) or unit.consensus_rank < 1:
            raise InvalidInput(f"voted_units[{i}].consensus_rank", "must be a finite rank >= 1")
        voted.append(unit.unit_id)
        consensus[unit.unit_id] = unit.consensus_rank
    return voted, consensus


class Retrieval:
    def __init__(self, components: Components) -> None:
        self.components = components

    def candidates(self, given: Sequence[VotedUnitInput], page_size: int, page_token: str) -> CandidatePage:
        """`page_size` 0 takes the default page."""
        voted, consensus = voted_units(given, {u.id for u in self.components.catalog.units})
        size = bounded(page_size, "page_size", MAX_PAGE, DEFAULT_PAGE)
        fingerprint = query_fingerprint(voted, consensus)
        after, position = decode_token(page_token, fingerprint, consensus) if page_token else (None, 0)
        # One more than the page tells whether another page follows.
        found = self.components.unit_index.ordered_candidates(voted, consensus, limit=size + 1, after=after)
        page = found[:size]
        token = encode_token(fingerprint, page[-1], position + len(page)) if len(found) > size else ""
        return CandidatePage([(position + offset, c) for offset, c in enumerate(page)], token)

    def search(self, text: str, k: int) -> SearchResult:
        """`k` 0 takes the default."""
        checked_text(text, "text")
        kept = bounded(k, "k", MAX_K, DEFAULT_K)
        embedder = self.components.embedder
        vector = embedder.encode([text])[0]
        if not any(vector):  # nothing the embedder could read (e.g. only digits for a word-hashing one)
            return SearchResult([], embedder.name)
        return SearchResult(list(self.components.vector_index.nearest(vector, kept)), embedder.name)
