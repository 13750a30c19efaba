"""Trace context through Kafka headers: producer span -> headers -> consumer span of the same trace."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from opentelemetry import trace
from opentelemetry.trace import NonRecordingSpan, SpanContext, SpanKind, StatusCode, TraceFlags

from scicustom.adapters.memory_bus import InMemoryEventBus
from scicustom.ports import BusMessage
from scicustom.telemetry.kafka_context import consumer_span, extract_context, inject_headers, producer_span


def _message(headers: dict[str, str], *, key: str | None = "build-7") -> BusMessage:
    return BusMessage("scicustom.build.requested", 3, 42, key, b"\x08\x01payload", headers)


def test_no_active_span_adds_nothing_and_the_input_is_not_changed():
    headers = {"event-type": "build.requested"}
    out = inject_headers(headers)
    assert out == {"event-type": "build.requested"} and out is not headers


def test_a_consumer_span_is_the_child_of_the_producer_span(tracing):
    tracer = tracing.provider.get_tracer("test")
    headers = {"event-type": "build.requested"}
    with tracer.start_as_current_span("CreateBuild") as rpc, \
            producer_span("scicustom.build.requested", key="build-7", tracer_provider=tracing.provider):
        sent = inject_headers(headers)
    assert headers == {"event-type": "build.requested"}
    assert sent["event-type"] == "build.requested" and "traceparent" in sent
    with consumer_span("vote", _message(sent), group="scicustom-vote", tracer_provider=tracing.provider) as span:
        assert trace.get_current_span() is span
    producer = tracing.named("send scicustom.build.requested")
    consumer = tracing.named("process scicustom.build.requested")
    assert producer.kind == SpanKind.PRODUCER and consumer.kind == SpanKind.CONSUMER
    assert producer.parent.span_id == rpc.get_span_context().span_id
    assert consumer.parent.span_id == producer.context.span_id and consumer.parent.is_remote
    assert consumer.context.trace_id == producer.context.trace_id == rpc.get_span_context().trace_id
    assert dict(producer.attributes) == {
        "messaging.system": "kafka", "messaging.operation.type": "send", "messaging.operation.name": "send",
        "messaging.destination.name": "scicustom.build.requested", "messaging.kafka.message.key": "build-7"}
    assert dict(consumer.attributes) == {
        "messaging.system": "kafka", "messaging.operation.type": "process", "messaging.operation.name": "process",
        "messaging.destination.name": "scicustom.build.requested", "messaging.destination.partition.id": "3",
        "messaging.kafka.offset": 42, "messaging.message.body.size": 9, "scicustom.stage": "vote",
        "messaging.kafka.message.key": "build-7", "messaging.consumer.group.name": "scicustom-vote"}


def test_context_survives_a_trip_through_the_in_memory_bus(tracing):
    bus = InMemoryEventBus()
    consumer = bus.consumer("scicustom-candidates", ["scicustom.build.units-voted"])
    with producer_span("scicustom.build.units-voted", tracer_provider=tracing.provider) as producer:
        bus.send("scicustom.build.units-voted", b"event", key="b1", headers=inject_headers({"schema": "1"}))
    [record] = consumer.poll(max_records=10, timeout_s=1.0)
    with consumer_span("candidates", record, tracer_provider=tracing.provider):
        pass
    span = tracing.named("process scicustom.build.units-voted")
    assert span.parent.span_id == producer.get_span_context().span_id
    assert span.context.trace_id == producer.get_span_context().trace_id
    assert "messaging.consumer.group.name" not in span.attributes


@pytest.mark.parametrize("headers", [{}, {"traceparent": "not-a-traceparent"},
                                     {"traceparent": "00-00000000000000000000000000000000-0000000000000000-01"}])
def test_records_without_valid_context_start_a_new_trace(tracing, headers):
    with consumer_span("vote", _message(headers, key=None), tracer_provider=tracing.provider):
        pass
    span = tracing.named("process scicustom.build.requested")
    assert span.parent is None and span.context.is_valid
    assert "messaging.kafka.message.key" not in span.attributes


def test_a_failing_handler_marks_the_consumer_span_and_the_error_propagates(tracing):
    error = RuntimeError("store unreachable")
    with pytest.raises(RuntimeError) as raised, consumer_span("cutoff", _message({}), tracer_provider=tracing.provider):
        raise error
    assert raised.value is error
    span = tracing.named("process scicustom.build.requested")
    assert span.status.status_code == StatusCode.ERROR
    assert [e.attributes["exception.message"] for e in span.events] == ["store unreachable"]


@given(trace_id=st.integers(1, 2**128 - 1), span_id=st.integers(1, 2**64 - 1), sampled=st.booleans(),
       other=st.dictionaries(st.sampled_from(["event-type", "schema", "build-id"]), st.text(max_size=8)))
def test_header_round_trip_keeps_ids_and_other_headers(trace_id, span_id, sampled, other):
    flags = TraceFlags(TraceFlags.SAMPLED if sampled else TraceFlags.DEFAULT)
    parent = NonRecordingSpan(SpanContext(trace_id, span_id, is_remote=False, trace_flags=flags))
    with trace.use_span(parent):
        headers = inject_headers(other)
    assert headers["traceparent"] == f"00-{trace_id:032x}-{span_id:016x}-{int(flags):02x}"
    assert {k: v for k, v in headers.items() if k != "traceparent"} == other
    extracted = trace.get_current_span(extract_context(headers)).get_span_context()
    assert (extracted.trace_id, extracted.span_id, extracted.trace_flags.sampled) == (trace_id, span_id, sampled)
    assert extracted.is_remote
