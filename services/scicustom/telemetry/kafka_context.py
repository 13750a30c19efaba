"""Trace context across Kafka: W3C `traceparent`/`tracestate` in the record headers, a PRODUCER
span around a publish and a CONSUMER span around handling a record, the child of the span that
published it, so one build is one trace across every worker.

Attribute names follow the OpenTelemetry messaging conventions; `scicustom.stage` names the worker
stage that handles the record.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager

from opentelemetry import propagate, trace
from opentelemetry.context import Context
from opentelemetry.trace import Span, SpanKind

from scicustom.ports import BusMessage

INSTRUMENTATION_NAME = "scicustom.telemetry.kafka"


def inject_headers(headers: Mapping[str, str]) -> dict[str, str]:
    """`headers` plus the trace context of the current span (a new dict; no span, no additions)."""
    carrier = dict(headers)
    propagate.inject(carrier)
    return carrier


def extract_context(headers: Mapping[str, str]) -> Context:
    """The publisher's trace context from record headers (an empty context when there is none)."""
    return propagate.extract({key.lower(): value for key, value in headers.items()})


@contextmanager
def consumer_span(stage: str, message: BusMessage, *, group: str | None = None,
                  tracer_provider: trace.TracerProvider | None = None) -> Iterator[Span]:
    """A current CONSUMER span `process <topic>` around handling `message`, continuing the trace
    its headers carry. An exception escaping the block is recorded and sets status ERROR."""
    attributes: dict[str, str | int] = {
        "messaging.system": "kafka",
        "messaging.operation.type": "process",
        "messaging.operation.name": "process",
        "messaging.destination.name": message.topic,
        "messaging.destination.partition.id": str(message.partition),
        "messaging.kafka.offset": message.offset,
        "messaging.message.body.size": len(message.value),
        "scicustom.stage": stage,
    }
    if message.key is not None:
        attributes["messaging.kafka.message.key"] = message.key
    if group is not None:
        attributes["messaging.consumer.group.name"] = group
    tracer = trace.get_tracer(INSTRUMENTATION_NAME, tracer_provider=tracer_provider)
    with tracer.start_as_current_span(f"process {message.topic}", context=extract_context(message.headers),
                                      kind=SpanKind.CONSUMER, attributes=attributes) as span:
        yield span


@contextmanager
def producer_span(topic: str, *, key: str | None = None,
                  tracer_provider: trace.TracerProvider | None = None) -> Iterator[Span]:
    """A current PRODUCER span `send <topic>`: call `inject_headers` inside it so the consumer's
    span becomes its child."""
    attributes = {"messaging.system": "kafka", "messaging.operation.type": "send",
                  "messaging.operation.name": "send", "messaging.destination.name": topic}
    if key is not None:
        attributes["messaging.kafka.message.key"] = key
    tracer = trace.get_tracer(INSTRUMENTATION_NAME, tracer_provider=tracer_provider)
    with tracer.start_as_current_span(f"send {topic}", kind=SpanKind.PRODUCER, attributes=attributes) as span:
        yield span
