"""What every UnitIndex adapter does around `core.candidates.order_candidates`: check the voted
units, and cut a page after a cursor, so the embedded and Elasticsearch paths agree on edge cases.
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping, Sequence

from scicustom.core.build.candidates import Candidate, order_candidates
from scicustom.core.errors import InvalidInput


def distinct_voted_units(voted_units: Sequence[str], consensus: Mapping[str, float]) -> list[str]:
    """The voted units once each, in the given order; each needs a consensus rank."""
    distinct = list(dict.fromkeys(voted_units))
    missing = [u for u in distinct if u not in consensus]
    if missing:
        raise InvalidInput("consensus", f"no consensus rank for voted unit(s) {', '.join(missing)}")
    return distinct


def order_key(candidate: Candidate) -> tuple[int, float, str]:
    """The sort key of `order_candidates`: more shared units, lower mean rank, then the item id."""
    return -len(candidate.shared_units), candidate.mean_rank, candidate.item_id


def check_page(limit: int | None) -> None:
    if limit is not None and limit < 0:
        raise InvalidInput("limit", "must be >= 0")


def check_cursor(after: Candidate, voted: Sequence[str], consensus: Mapping[str, float]) -> None:
    """A cursor must be a candidate of this query: its units among the voted, its mean rank theirs."""
    if not after.shared_units or not set(after.shared_units) <= set(voted):
        raise InvalidInput("after", "the cursor's shared units are not among the voted units")
    expected = order_candidates({after.item_id: after.shared_units}, consensus)[0]
    if expected != after:
        raise InvalidInput("after", "the cursor is not a candidate of these voted units and consensus ranks")


def page_after(ordered: Sequence[Candidate], limit: int | None, after: Candidate | None) -> list[Candidate]:
    """The candidates strictly after `after` in `ordered` (sorted by `order_key`), at most `limit`."""
    check_page(limit)
    start = 0 if after is None else bisect.bisect_right(ordered, order_key(after), key=order_key)
    end = len(ordered) if limit is None else start + limit
    return list(ordered[start:end])
