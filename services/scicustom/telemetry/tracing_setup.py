"""The tracer provider, configured only by the standard `OTEL_*` environment variables.

`tracer_provider_from_env` builds a provider without touching the process-wide one (tests use it
directly: the global provider can be set only once per process); `configure_tracing` builds one
and installs it globally, once. What the SDK reads itself stays with the SDK: OTEL_TRACES_SAMPLER,
OTEL_BSP_*, OTEL_SDK_DISABLED (a disabled provider hands out no-op tracers), and the exporter's
OTEL_EXPORTER_OTLP_* (insecure, headers, certificate, timeout, compression).
"""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping, Sequence

from opentelemetry import trace
from opentelemetry.sdk.resources import SERVICE_NAME, OTELResourceDetector, Resource
from opentelemetry.sdk.trace import SpanProcessor, TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter

log = logging.getLogger(__name__)

ENDPOINT_VARIABLES = ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_ENDPOINT")


def tracing_disabled(env: Mapping[str, str]) -> bool:
    return env.get("OTEL_SDK_DISABLED", "").strip().lower() == "true"


def otlp_export_requested(env: Mapping[str, str]) -> bool:
    """An OTLP endpoint is set, the SDK is enabled and OTEL_TRACES_EXPORTER does not say `none`."""
    exporters = {name.strip().lower() for name in env.get("OTEL_TRACES_EXPORTER", "otlp").split(",")}
    return (not tracing_disabled(env) and "none" not in exporters
            and any(env.get(name, "").strip() for name in ENDPOINT_VARIABLES))


def otlp_exporter_from_env() -> SpanExporter | None:
    """The OTLP/gRPC span exporter when the environment asks for one; it reads its own settings."""
    if not otlp_export_requested(os.environ):
        return None
    from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter

    return OTLPSpanExporter()


def resource_from_env(service_name: str) -> Resource:
    """service.name: OTEL_SERVICE_NAME, else service.name in OTEL_RESOURCE_ATTRIBUTES, else `service_name`."""
    from_env = OTELResourceDetector().detect().attributes
    return Resource.create({SERVICE_NAME: service_name, **from_env})


def tracer_provider_from_env(service_name: str, *, span_processors: Sequence[SpanProcessor] = ()) -> TracerProvider:
    """A provider for `service_name`, exporting by OTLP when an endpoint is set, plus `span_processors`
    (tests pass a SimpleSpanProcessor over an InMemorySpanExporter). Not installed globally."""
    provider = TracerProvider(resource=resource_from_env(service_name))
    exporter = otlp_exporter_from_env()
    if exporter is not None:
        provider.add_span_processor(BatchSpanProcessor(exporter))
    for processor in span_processors:
        provider.add_span_processor(processor)
    return provider


def install_tracer_provider(provider: TracerProvider) -> TracerProvider:
    """Makes `provider` the process-wide one unless an SDK provider is already installed, which
    is then kept and returned (the API refuses a second global provider)."""
    current = trace.get_tracer_provider()
    if isinstance(current, TracerProvider):
        return current
    trace.set_tracer_provider(provider)
    return provider


def configure_tracing(service_name: str, *, span_processors: Sequence[SpanProcessor] = ()) -> TracerProvider:
    """Builds the provider from the environment and installs it globally; idempotent: a second call
    returns the provider already installed (and ignores its arguments)."""
    current = trace.get_tracer_provider()
    if isinstance(current, TracerProvider):
        return current
    provider = install_tracer_provider(tracer_provider_from_env(service_name, span_processors=span_processors))
    if otlp_export_requested(os.environ):
        log.info("tracing: %s exports spans by OTLP", provider.resource.attributes.get(SERVICE_NAME))
    return provider


def shutdown_tracing(timeout_ms: int = 10_000) -> None:
    """Flushes pending spans and stops the exporters of the installed provider (graceful exit)."""
    current = trace.get_tracer_provider()
    if isinstance(current, TracerProvider):
        if not current.force_flush(timeout_ms):
            log.warning("tracing: spans not flushed within %d ms", timeout_ms)
        current.shutdown()


def tracer(name: str, provider: trace.TracerProvider | None = None) -> trace.Tracer:
    """A tracer of `provider`, else of the global provider (a proxy until one is installed)."""
    return trace.get_tracer(name, tracer_provider=provider)
