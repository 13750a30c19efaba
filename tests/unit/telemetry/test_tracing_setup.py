"""The provider from OTEL_* env: resource, OTLP export to a loopback receiver, disabling, and the
process-wide install (in a subprocess: the global provider can be set once per process)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from scicustom.telemetry.tracing_setup import (
    otlp_export_requested,
    otlp_exporter_from_env,
    resource_from_env,
    tracer_provider_from_env,
)
from tests.support.otlp_receiver import OtlpReceiver

REPO = Path(__file__).resolve().parents[3]


@pytest.fixture
def clean_env(monkeypatch) -> pytest.MonkeyPatch:
    for name in list(os.environ):
        if name.startswith("OTEL_"):
            monkeypatch.delenv(name)
    return monkeypatch


@pytest.fixture
def receiver() -> Iterator[OtlpReceiver]:
    with OtlpReceiver.start() as started:
        yield started


@pytest.mark.parametrize(("env", "expected"), [
    ({}, False),
    ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:4317"}, True),
    ({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://collector:4317"}, True),
    ({"OTEL_EXPORTER_OTLP_ENDPOINT": "  "}, False),
    ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4317", "OTEL_SDK_DISABLED": "TRUE "}, False),
    ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4317", "OTEL_SDK_DISABLED": "false"}, True),
    ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4317", "OTEL_TRACES_EXPORTER": "none"}, False),
    ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4317", "OTEL_TRACES_EXPORTER": "otlp"}, True),
])
def test_when_spans_are_exported(env, expected):
    assert otlp_export_requested(env) is expected


def test_service_name_precedence(clean_env):
    assert resource_from_env("scicustom-builds").attributes["service.name"] == "scicustom-builds"
    clean_env.setenv("OTEL_RESOURCE_ATTRIBUTES", "service.name=from-attributes,deployment.environment=ci")
    resource = resource_from_env("scicustom-builds")
    assert resource.attributes["service.name"] == "from-attributes"
    assert resource.attributes["deployment.environment"] == "ci"
    clean_env.setenv("OTEL_SERVICE_NAME", "from-service-name")
    assert resource_from_env("scicustom-builds").attributes["service.name"] == "from-service-name"
    assert resource.attributes["telemetry.sdk.language"] == "python"


def test_spans_are_exported_by_otlp_to_the_endpoint(clean_env, receiver):
    clean_env.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint)
    clean_env.setenv("OTEL_EXPORTER_OTLP_INSECURE", "true")
    clean_env.setenv("OTEL_RESOURCE_ATTRIBUTES", "deployment.environment=test")
    provider = tracer_provider_from_env("scicustom-jury")
    tracer = provider.get_tracer("test")
    with tracer.start_as_current_span("RankUnits") as parent, tracer.start_as_current_span("llm.complete") as child:
        child.set_attribute("gen_ai.usage.input_tokens", 120)
    assert provider.force_flush(10_000)
    provider.shutdown()
    spans = {s.name: s for s in receiver.spans()}
    assert set(spans) == {"RankUnits", "llm.complete"}
    rank, llm = spans["RankUnits"], spans["llm.complete"]
    assert rank.service == llm.service == "scicustom-jury"
    assert rank.resource["deployment.environment"] == "test"
    assert rank.trace_id == llm.trace_id == f"{parent.get_span_context().trace_id:032x}"
    assert llm.parent_span_id == rank.span_id and rank.parent_span_id == ""
    assert llm.attributes == {"gen_ai.usage.input_tokens": 120}
    assert llm.kind == "INTERNAL" and llm.scope == "test"


def test_no_endpoint_means_no_exporter_and_test_processors_still_see_spans(clean_env):
    assert otlp_exporter_from_env() is None
    memory = InMemorySpanExporter()
    provider = tracer_provider_from_env("scicustom-tagger", span_processors=[SimpleSpanProcessor(memory)])
    with provider.get_tracer("test").start_as_current_span("Tag"):
        pass
    [span] = memory.get_finished_spans()
    assert span.name == "Tag" and span.resource.attributes["service.name"] == "scicustom-tagger"


def test_a_disabled_sdk_records_and_exports_nothing(clean_env, receiver):
    clean_env.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", receiver.endpoint)
    clean_env.setenv("OTEL_SDK_DISABLED", "true")
    assert otlp_exporter_from_env() is None
    memory = InMemorySpanExporter()
    provider = tracer_provider_from_env("scicustom-tagger", span_processors=[SimpleSpanProcessor(memory)])
    with provider.get_tracer("test").start_as_current_span("Tag") as span:
        assert not span.is_recording()
    provider.force_flush()
    assert memory.get_finished_spans() == () and receiver.spans() == []


def test_configure_tracing_installs_once_and_shutdown_flushes(receiver):
    # A fresh interpreter: the process-wide provider of this one may already be set by other tests.
    script = textwrap.dedent("""
        import os

        from opentelemetry import trace
        from scicustom.telemetry.tracing_setup import configure_tracing, shutdown_tracing, tracer

        first = configure_tracing("scicustom-builds")
        assert configure_tracing("another-name") is first
        assert trace.get_tracer_provider() is first
        with tracer("scicustom.test").start_as_current_span("CreateBuild"):
            pass
        shutdown_tracing()
        os._exit(0)  # no atexit flush: with an hour's batch delay only shutdown_tracing can have exported
    """)
    env = {k: v for k, v in os.environ.items() if not k.startswith("OTEL_")}
    env.update(OTEL_EXPORTER_OTLP_ENDPOINT=receiver.endpoint, OTEL_EXPORTER_OTLP_INSECURE="true",
               OTEL_BSP_SCHEDULE_DELAY="3600000", PYTHONPATH=str(REPO / "services"))
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=120,
                          check=False)
    assert done.returncode == 0, done.stderr
    [span] = receiver.spans()
    assert (span.name, span.service, span.kind, span.scope) == ("CreateBuild", "scicustom-builds", "INTERNAL",
                                                                 "scicustom.test")
