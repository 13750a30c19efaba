"""Start the platform's own processes (gRPC services, stage workers, the tagger model server) on
loopback against running servers, each in its own session with its log file, ready once its gRPC
health service answers SERVING."""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import grpc
from grpc_health.v1 import health_pb2, health_pb2_grpc

from scicustom.devstack.real_servers import (
    ElasticsearchServer,
    KafkaServer,
    S3Server,
    ServerProcess,
    free_port,
    start_process,
)
from scicustom.grpc_server.auth_tokens import Role, new_token, token_line

PLATFORM_STARTUP_S = 180.0  # a worker loads the local models before it serves health
DEV_TENANT = "dev"  # the tenant of the token a local cluster's clients use
SERVICES = ("ontology", "tagger", "jury", "retrieval", "selector", "generator", "scorer", "builds", "ingest")
_PASSED_THROUGH = ("PATH", "LANG", "OTEL_", "SCICUSTOM_WHEEL_CACHE_DIR", "SCICUSTOM_MODEL_CACHE_DIR",
                   "SCICUSTOM_UNITS_FILE")


def scicustom_command() -> str:
    """The `scicustom` console script of this interpreter's environment."""
    return str(Path(sys.executable).parent / "scicustom")


def dev_credentials(home: Path, tenant: str = DEV_TENANT) -> dict[str, str]:
    """A tokens file with one fresh token in <home>/auth/ (readable by this user only), and the
    settings that use it: the services' SCICUSTOM_AUTH_TOKENS_FILE and the clients' SCICUSTOM_AUTH_TOKEN.
    A local cluster authenticates like a real one; its clients find the token in cluster.env. The
    token has the admin role: a local cluster's one user is also its operator (ingest, imports)."""
    token = new_token()
    folder = home / "auth"
    folder.mkdir(parents=True, exist_ok=True)
    folder.chmod(0o700)
    path = folder / "tokens"
    path.write_text(token_line(tenant, token, Role.ADMIN) + "\n", encoding="utf-8")
    path.chmod(0o600)
    return {"SCICUSTOM_AUTH_TOKENS_FILE": str(path), "SCICUSTOM_AUTH_TOKEN": token}


def cluster_env(s3: S3Server, kafka: KafkaServer, es: ElasticsearchServer, home: Path, *,
                index: str = "scicustom-items", topic_prefix: str = "scicustom",
                extra: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a cluster-profile process talking to these servers, with a fresh bearer
    token (dev_credentials) since the cluster profile authenticates every RPC."""
    env = {k: v for k, v in os.environ.items() if k.startswith(_PASSED_THROUGH)}
    env.update({
        "HOME": str(home), "SCICUSTOM_PROFILE": "cluster", "SCICUSTOM_HOME": str(home),
        "SCICUSTOM_S3_ENDPOINT": s3.endpoint, "SCICUSTOM_S3_BUCKET": s3.bucket,
        "SCICUSTOM_S3_ACCESS_KEY": s3.access_key, "SCICUSTOM_S3_SECRET_KEY": s3.secret_key,
        "SCICUSTOM_KAFKA_BOOTSTRAP": kafka.bootstrap, "SCICUSTOM_ELASTICSEARCH_URL": es.url,
        "SCICUSTOM_ELASTICSEARCH_INDEX": index, "SCICUSTOM_TOPIC_PREFIX": topic_prefix,
        "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "TOKENIZERS_PARALLELISM": "false",
        "LITELLM_LOCAL_MODEL_COST_MAP": "True",
    })
    env.update(dev_credentials(home))
    env.update(extra or {})
    return env


def health_serving(port: int, service: str = "", timeout_s: float = 1.0) -> bool:
    with grpc.insecure_channel(f"127.0.0.1:{port}") as channel:
        response = health_pb2_grpc.HealthStub(channel).Check(health_pb2.HealthCheckRequest(service=service),
                                                             timeout=timeout_s)
    return bool(response.status == health_pb2.HealthCheckResponse.SERVING)


def _own_metrics_port(env: Mapping[str, str]) -> dict[str, str]:
    """Processes on one host cannot all bind the cluster default (9464): each gets a free port,
    unless the environment chose (SCICUSTOM_METRICS_PORT=0 turns the endpoint off)."""
    return {} if "SCICUSTOM_METRICS_PORT" in env else {"SCICUSTOM_METRICS_PORT": str(free_port())}


def start_service(name: str, env: Mapping[str, str], log_dir: Path,
                  port: int | None = None) -> tuple[ServerProcess, int]:
    """`scicustom service <name>` on 127.0.0.1:<port>; returns the process and its port."""
    port = port or free_port()
    argv = [scicustom_command(), "service", name, "--host", "127.0.0.1", "--port", str(port)]
    process = start_process(f"service-{name}", argv, log_dir, lambda _: health_serving(port),
                            {**env, "OTEL_SERVICE_NAME": f"scicustom-{name}", **_own_metrics_port(env)},
                            timeout_s=PLATFORM_STARTUP_S)
    return process, port


def start_worker(stages: Sequence[str], env: Mapping[str, str], log_dir: Path, *, name: str | None = None,
                 port: int | None = None) -> tuple[ServerProcess, int]:
    """`scicustom worker <stages...>` with its health port; ready when it consumes."""
    port = port or free_port()
    label = name or f"worker-{'-'.join(stages)}"
    argv = [scicustom_command(), "worker", *stages, "--health-port", str(port)]
    process = start_process(label, argv, log_dir, lambda _: health_serving(port),
                            {**env, "OTEL_SERVICE_NAME": f"scicustom-{label}", **_own_metrics_port(env)},
                            timeout_s=PLATFORM_STARTUP_S)
    return process, port
