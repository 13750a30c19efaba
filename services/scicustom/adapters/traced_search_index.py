"""The index ports (UnitIndex, VectorIndex, SearchIndex) with a span per call.

A wrapper offers exactly the port methods of what it wraps, so Protocol checks see the same
capabilities: `traced_index` picks the class. Other attributes of the wrapped index (such as
`approximate_nearest` or `save`) are reachable through the wrapper, untraced.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, overload

import numpy as np
from opentelemetry import trace

from scicustom.core.build.candidates import Candidate
from scicustom.ports import IndexedItem, SearchIndex, UnitIndex, VectorIndex
from scicustom.telemetry.port_spans import TracedPort

UNIT_METHODS = ("item_ids", "items_with_units", "unit_counts", "ordered_candidates")


class _TracedIndex(TracedPort):
    """Spans carry `index.<method>` names; the subclasses add the methods of each index port."""


class TracedUnitIndex(_TracedIndex):
    """Spans `index.item_ids`, `index.items_with_units`, `index.unit_counts`, `index.ordered_candidates`."""

    def __init__(self, inner: UnitIndex, tracer_provider: trace.TracerProvider | None = None) -> None:
        super().__init__(inner, tracer_provider)

    def item_ids(self) -> list[str]:
        with self._spans.span("index.item_ids", {}) as span:
            ids: list[str] = self.inner.item_ids()
            span.set_attribute("scicustom.index.items", len(ids))
            return ids

    def items_with_units(self, unit_ids: Sequence[str]) -> dict[str, list[str]]:
        with self._spans.span("index.items_with_units", {"scicustom.index.units": len(unit_ids)}) as span:
            found: dict[str, list[str]] = self.inner.items_with_units(unit_ids)
            span.set_attribute("scicustom.index.items", len(found))
            return found

    def unit_counts(self) -> dict[str, int]:
        with self._spans.span("index.unit_counts", {}) as span:
            counts: dict[str, int] = self.inner.unit_counts()
            span.set_attribute("scicustom.index.units", len(counts))
            return counts

    def ordered_candidates(self, voted_units: Sequence[str], consensus: Mapping[str, float], *,
                           limit: int | None = None, after: Candidate | None = None) -> list[Candidate]:
        attributes: dict[str, Any] = {"scicustom.index.voted_units": len(voted_units)}
        if limit is not None:
            attributes["scicustom.index.limit"] = limit
        if after is not None:
            attributes["scicustom.index.after_item"] = after.item_id
        with self._spans.span("index.ordered_candidates", attributes) as span:
            page: list[Candidate] = self.inner.ordered_candidates(voted_units, consensus, limit=limit, after=after)
            span.set_attribute("scicustom.index.candidates", len(page))
            return page


class TracedVectorIndex(_TracedIndex):
    """Spans `index.nearest`."""

    def __init__(self, inner: VectorIndex, tracer_provider: trace.TracerProvider | None = None) -> None:
        super().__init__(inner, tracer_provider)

    def nearest(self, vector: np.ndarray, k: int) -> list[tuple[str, float]]:
        with self._spans.span("index.nearest", {"scicustom.index.k": k}) as span:
            hits: list[tuple[str, float]] = self.inner.nearest(vector, k)
            span.set_attribute("scicustom.index.hits", len(hits))
            return hits


class TracedSearchIndex(TracedUnitIndex, TracedVectorIndex):
    """All index spans plus `index.index_items`."""

    def __init__(self, inner: SearchIndex, tracer_provider: trace.TracerProvider | None = None) -> None:
        _TracedIndex.__init__(self, inner, tracer_provider)

    def index_items(self, items: Sequence[IndexedItem]) -> int:
        with self._spans.span("index.index_items", {"scicustom.index.items": len(items)}) as span:
            indexed: int = self.inner.index_items(items)
            span.set_attribute("scicustom.index.indexed", indexed)
            return indexed

    def delete_items(self, item_ids: Sequence[str]) -> int:
        with self._spans.span("index.delete_items", {"scicustom.index.items": len(item_ids)}) as span:
            removed: int = self.inner.delete_items(item_ids)
            span.set_attribute("scicustom.index.removed", removed)
            return removed


@overload
def traced_index(inner: SearchIndex, tracer_provider: trace.TracerProvider | None = None) -> TracedSearchIndex: ...
@overload
def traced_index(inner: UnitIndex, tracer_provider: trace.TracerProvider | None = None) -> TracedUnitIndex: ...
@overload
def traced_index(inner: VectorIndex, tracer_provider: trace.TracerProvider | None = None) -> TracedVectorIndex: ...
def traced_index(inner: Any, tracer_provider: trace.TracerProvider | None = None) -> _TracedIndex:
    """The wrapper with the port methods `inner` has; TypeError for an object with none."""
    units = all(callable(getattr(inner, name, None)) for name in UNIT_METHODS)
    vectors = callable(getattr(inner, "nearest", None))
    if units and vectors and callable(getattr(inner, "index_items", None)):
        return TracedSearchIndex(inner, tracer_provider)
    if units:
        return TracedUnitIndex(inner, tracer_provider)
    if vectors:
        return TracedVectorIndex(inner, tracer_provider)
    raise TypeError(f"{type(inner).__name__} implements neither UnitIndex nor VectorIndex")
