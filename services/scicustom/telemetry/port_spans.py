"""Spans around port calls (`store.put_bytes`, `index.nearest`, `llm.complete`) for the traced
port wrappers in `scicustom.adapters.traced_*`."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from opentelemetry import trace
from opentelemetry.trace import Span, SpanKind
from opentelemetry.util.types import AttributeValue

INSTRUMENTATION_NAME = "scicustom.telemetry.ports"


class PortSpans:
    """Opens CLIENT spans for calls on one adapter; `scicustom.adapter` names the adapter class."""

    def __init__(self, adapter: object, tracer_provider: trace.TracerProvider | None = None) -> None:
        self.adapter_name = type(adapter).__name__
        self._tracer = trace.get_tracer(INSTRUMENTATION_NAME, tracer_provider=tracer_provider)

    @contextmanager
    def span(self, name: str, attributes: dict[str, AttributeValue]) -> Iterator[Span]:
        """A current span; an escaping exception is recorded, sets status ERROR and propagates unchanged."""
        with self._tracer.start_as_current_span(name, kind=SpanKind.CLIENT,
                                                attributes={"scicustom.adapter": self.adapter_name,
                                                            **attributes}) as span:
            yield span


class TracedPort:
    """Base of the traced wrappers: holds the wrapped adapter and its spans, and passes every other
    attribute (e.g. `.usage`, `.save`) through to it, untraced."""

    def __init__(self, inner: Any, tracer_provider: trace.TracerProvider | None = None) -> None:
        self.inner = inner
        self._spans = PortSpans(inner, tracer_provider)

    def __getattr__(self, name: str) -> Any:
        if name == "inner":  # not set yet (copy, unpickling): no recursion
            raise AttributeError(name)
        return getattr(self.inner, name)
