"""Typed settings. Profile `local` (embedded defaults) or `cluster`; read from SCICUSTOM_* env vars."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

RESOURCES = Path(__file__).parent / "resources"


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
    # Batch sizes for the local models.
    embed_batch: int = 64
    perplexity_batch: int = 16
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
    build_service_address: str = Field(default="127.0.0.1:50051",
                                       description="host:port of BuildService for `--profile cluster build`")
    # Kafka workers: bounded retries with backoff, then the dead-letter topic; the breaker stops a
    # worker after this many dead letters in a row.
    topic_prefix: str = "scicustom"
    worker_max_attempts: int = 3
    worker_backoff_s: float = 0.5
    worker_breaker_threshold: int = 5
    log_format: Literal["text", "json"] = "text"
    # Prometheus /metrics of `scicustom service` and `scicustom worker` (telemetry/metrics_endpoint.py):
    # unset, port 9464 in the cluster profile and none in the local one; 0 turns it off.
    metrics_port: int | None = Field(default=None, ge=0, le=65535, description="0: no metrics endpoint")
    metrics_host: str | None = Field(default=None, description="interface of the metrics endpoint (default grpc_host)")

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
