"""Prometheus metrics of the platform: one registry per process, every metric family defined here.

Prometheus scrapes one endpoint per process, so a process keeps one registry (`process_metrics()`,
created on first use, like OpenTelemetry's global tracer provider) and the edges that record
(the gRPC interceptor, the stage consumer loop, the LLM and tagger adapters, the build handlers)
all write to it. The core never imports this module.

Histograms carry an exemplar with the trace id and span id of the current span when that span is
sampled, so a slow bucket links to a trace; the exposition serves exemplars to a scraper that asks
for `application/openmetrics-text` (Prometheus with exemplar storage enabled does).
"""

from __future__ import annotations

import threading

from opentelemetry import trace
from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.gc_collector import GCCollector
from prometheus_client.platform_collector import PlatformCollector
from prometheus_client.process_collector import ProcessCollector

# Bucket bounds in seconds. RPCs and stage records range from milliseconds (lookups) to minutes
# (LLM juries, question generation); a stream's latency is its whole life (WatchBuild).
RPC_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0)
STAGE_BUCKETS = (0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0, 600.0, 1800.0)
LLM_BUCKETS = (0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 20.0, 40.0, 60.0, 120.0, 300.0)
TAGGER_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


def trace_exemplar() -> dict[str, str] | None:
    """{trace_id, span_id} of the current span when it is sampled (an unsampled trace is never
    exported, so a link to it would lead nowhere); None otherwise."""
    context = trace.get_current_span().get_span_context()
    if not context.is_valid or not context.trace_flags.sampled:
        return None
    return {"trace_id": format(context.trace_id, "032x"), "span_id": format(context.span_id, "016x")}


class PlatformMetrics:
    """Every metric family of the platform, registered in `registry` (a new one by default, with the
    process, platform and garbage-collector collectors of prometheus_client)."""

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        if registry is None:
            registry = CollectorRegistry(auto_describe=True)
            ProcessCollector(registry=registry)
            PlatformCollector(registry=registry)
            GCCollector(registry=registry)
        self.registry = registry
        r = registry
        # gRPC servers (grpc_server/rpc_metrics.py). code: the gRPC status name, e.g. OK, NOT_FOUND.
        self.rpc_requests = Counter("scicustom_rpc_requests", "RPCs handled, by method and status code",
                                    ["service", "method", "code"], registry=r)
        self.rpc_latency = Histogram("scicustom_rpc_latency_seconds",
                                     "Time from the call reaching the handler to its status (a stream: its whole life)",
                                     ["service", "method"], buckets=RPC_BUCKETS, registry=r)
        self.rpc_in_flight = Gauge("scicustom_rpc_in_flight", "RPCs being handled now", ["service", "method"],
                                   registry=r)
        # Kafka stage workers (workers/stage_consumer.py). outcome: ok or dead_letter.
        self.stage_messages = Counter("scicustom_stage_messages", "Records a stage finished with, by outcome",
                                      ["stage", "outcome"], registry=r)
        self.stage_processing = Histogram("scicustom_stage_processing_seconds",
                                          "Time to handle one record, retries and backoff included",
                                          ["stage"], buckets=STAGE_BUCKETS, registry=r)
        self.stage_retries = Counter("scicustom_stage_retries", "Failed attempts that were retried", ["stage"],
                                     registry=r)
        self.consumer_lag = Gauge("scicustom_consumer_lag",
                                  "Records between a consumer's position and the end of its partition",
                                  ["topic", "partition", "group"], registry=r)
        # Builds (builds/servicer.py, builds/worker.py): how many builds entered each state.
        self.builds = Counter("scicustom_builds",
                              "Builds that entered a state: queued, running, succeeded, failed, cancelled",
                              ["state"], registry=r)
        # LLM calls (adapters/litellm_llm.py). outcome: ok (the provider answered), cached, error.
        self.llm_calls = Counter("scicustom_llm_calls", "LLM completions asked for, by outcome",
                                 ["model", "outcome"], registry=r)
        self.llm_tokens = Counter("scicustom_llm_tokens", "Tokens the provider billed, by kind (prompt, completion)",
                                  ["model", "kind"], registry=r)
        self.llm_cost = Counter("scicustom_llm_cost_usd", "Provider cost in US dollars (cached answers are free)",
                                ["model"], registry=r)
        self.llm_cache = Counter("scicustom_llm_cache", "Response cache lookups, by result (hit, miss)",
                                 ["result"], registry=r)
        self.llm_latency = Histogram("scicustom_llm_call_seconds",
                                     "Time of a provider call (cache misses), retries included",
                                     ["model"], buckets=LLM_BUCKETS, registry=r)
        # Tagger (adapters/onnx_tagger.py, adapters/triton_tagger.py). backend: onnx, oip_grpc, oip_http.
        self.tagger_batch = Histogram("scicustom_tagger_batch_seconds", "Time to tag one batch of texts",
                                      ["backend"], buckets=TAGGER_BUCKETS, registry=r)
        self.tagger_texts = Counter("scicustom_tagger_texts", "Texts tagged", ["backend"], registry=r)

    def observe(self, histogram: Histogram, seconds: float, *labels: str) -> None:
        """One observation, with the current trace as its exemplar when there is one."""
        histogram.labels(*labels).observe(seconds, exemplar=trace_exemplar())


_lock = threading.Lock()
_process: PlatformMetrics | None = None


def process_metrics() -> PlatformMetrics:
    """The metrics of this process (created on first use; every caller gets the same object)."""
    global _process
    with _lock:
        if _process is None:
            _process = PlatformMetrics()
        return _process
