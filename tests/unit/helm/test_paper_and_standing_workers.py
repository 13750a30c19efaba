"""The paper-ingestion service and workers and the standing-build workers in the chart: the papers
gRPC service and one Deployment, ScaledObject, PDB and egress-only NetworkPolicy per new stage, with
the LLM reachable from the extractors and from nothing else among them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from tests.unit.helm.conftest import by_kind

# values entry -> (stage, topic it consumes, chart-default lagThreshold)
NEW_WORKERS = {
    "worker-parse": ("parse", "scicustom.paper.submitted", 100),
    "worker-extract-qa": ("extract-qa", "scicustom.paper.parsed", 20),
    "worker-extract-recipes": ("extract-recipes", "scicustom.paper.parsed", 20),
    "worker-extract-hyps": ("extract-hypotheses", "scicustom.paper.parsed", 20),
    "worker-standing": ("standing", "scicustom.ingest.items-indexed", 50),
    "worker-standing-notify": ("standing-notify", "scicustom.build.completed", 50),
}
EXTRACTORS = ("worker-extract-qa", "worker-extract-recipes", "worker-extract-hyps")
PORT = 50051
# The egress rule of each infrastructure target, as rendered from the chart defaults and from
# k8s/examples/gpu.yaml (where the LLM gateway is port 4000 in namespace llm).
DEFAULT_RULES = {
    "kafka": {"ports": [{"protocol": "TCP", "port": 9092}]},
    "s3": {"ports": [{"protocol": "TCP", "port": 9000}]},
    "llm": {"ports": [{"protocol": "TCP", "port": 443}]},
    "elasticsearch": {"ports": [{"protocol": "TCP", "port": 9200}]},
}


def _ns(name: str) -> list[dict[str, Any]]:
    return [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": name}}}]


GPU_RULES = {
    "kafka": {"ports": [{"protocol": "TCP", "port": 9093}], "to": _ns("kafka")},
    "s3": {"ports": [{"protocol": "TCP", "port": 9000}], "to": _ns("storage")},
    "llm": {"ports": [{"protocol": "TCP", "port": 4000}], "to": _ns("llm")},
    "elasticsearch": {"ports": [{"protocol": "TCP", "port": 9200}], "to": _ns("search")},
}


@pytest.fixture(scope="module")
def default_docs(render: Callable[..., list[dict[str, Any]]]) -> list[dict[str, Any]]:
    return render()


def _container(deployment: dict[str, Any]) -> dict[str, Any]:
    (container,) = deployment["spec"]["template"]["spec"]["containers"]
    return container


def _reachable(policy: dict[str, Any], rules: dict[str, dict[str, Any]]) -> set[str]:
    egress = policy["spec"]["egress"]
    return {target for target, rule in rules.items() if rule in egress}


@pytest.mark.parametrize("example", ["default", "gpu"])
def test_papers_service_and_new_workers_are_deployed_and_scaled(
        example: str, default_docs: list[dict[str, Any]], gpu_docs: list[dict[str, Any]]) -> None:
    docs = default_docs if example == "default" else gpu_docs
    deployments, scaled = by_kind(docs, "Deployment"), by_kind(docs, "ScaledObject")
    pdbs, policies = by_kind(docs, "PodDisruptionBudget"), by_kind(docs, "NetworkPolicy")

    papers = _container(deployments["scicustom-papers"])
    assert papers["command"] == ["scicustom", "--profile", "cluster", "service", "papers", "--host", "0.0.0.0"]
    assert papers["readinessProbe"]["grpc"] == {"port": PORT, "service": "scicustom.papers.v1.PaperService"}
    assert papers["resources"]["limits"] == {"cpu": "1", "memory": "2Gi"}
    port, _metrics = by_kind(docs, "Service")["scicustom-papers"]["spec"]["ports"]
    assert (port["port"], port["appProtocol"]) == (PORT, "kubernetes.io/h2c")
    hpa = by_kind(docs, "HorizontalPodAutoscaler")["scicustom-papers"]["spec"]
    assert hpa["scaleTargetRef"]["name"] == "scicustom-papers"
    assert "scicustom-papers" in pdbs
    assert "ingress" in policies["scicustom-papers"]["spec"]  # gRPC clients may call it

    for entry, (stage, topic, lag) in NEW_WORKERS.items():
        full = f"scicustom-{entry}"
        container = _container(deployments[full])
        assert container["command"] == ["scicustom", "--profile", "cluster", "worker", stage]
        assert container["ports"] == [{"name": "health", "containerPort": PORT, "protocol": "TCP"},
                                      {"name": "metrics", "containerPort": 9464, "protocol": "TCP"}]
        assert container["readinessProbe"]["grpc"] == {"port": PORT, "service": f"scicustom.worker.{stage}"}
        spec = scaled[full]["spec"]
        assert spec["scaleTargetRef"] == {"name": full}
        (trigger,) = spec["triggers"]
        assert trigger["type"] == "kafka"
        assert trigger["metadata"]["consumerGroup"] == f"scicustom-{stage}"
        assert trigger["metadata"]["topic"] == topic
        assert trigger["metadata"]["lagThreshold"] == str(lag)
        assert full in pdbs
        # Nothing connects to a worker but the metrics scraper, to the metrics port.
        assert [r["ports"] for r in policies[full]["spec"]["ingress"]] == [[{"protocol": "TCP", "port": 9464}]]


def test_new_worker_resources_and_grace(default_docs: list[dict[str, Any]]) -> None:
    deployments = by_kind(default_docs, "Deployment")

    parse = deployments["scicustom-worker-parse"]
    assert _container(parse)["resources"]["limits"] == {"cpu": "2", "memory": "2Gi"}
    assert parse["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] == 120
    for entry in ("worker-standing", "worker-standing-notify"):
        assert _container(deployments[f"scicustom-{entry}"])["resources"] == {
            "requests": {"cpu": "100m", "memory": "256Mi"}, "limits": {"cpu": "500m", "memory": "512Mi"}}


@pytest.mark.parametrize("example", ["default", "gpu"])
def test_only_the_extractors_may_reach_the_llm(
        example: str, default_docs: list[dict[str, Any]], gpu_docs: list[dict[str, Any]]) -> None:
    docs, rules = (default_docs, DEFAULT_RULES) if example == "default" else (gpu_docs, GPU_RULES)
    policies = by_kind(docs, "NetworkPolicy")
    for entry in EXTRACTORS:
        assert _reachable(policies[f"scicustom-{entry}"], rules) == {"kafka", "s3", "llm"}, entry
    for entry in ("worker-parse", "worker-standing", "worker-standing-notify"):
        assert _reachable(policies[f"scicustom-{entry}"], rules) == {"kafka", "s3"}, entry
    assert _reachable(policies["scicustom-papers"], rules) == {"kafka", "s3"}
    # parse may not reach the LLM on any port it is served on
    llm_ports = {p["port"] for p in rules["llm"]["ports"]}
    parse_ports = {p["port"] for rule in policies["scicustom-worker-parse"]["spec"]["egress"] for p in rule["ports"]}
    assert not llm_ports & parse_ports


def test_small_cpu_runs_each_new_process_once(small_docs: list[dict[str, Any]]) -> None:
    deployments = by_kind(small_docs, "Deployment")
    for entry in ("papers", *NEW_WORKERS):
        assert deployments[f"scicustom-{entry}"]["spec"]["replicas"] == 1
    assert _container(deployments["scicustom-papers"])["resources"]["limits"]["memory"] == "2Gi"


def test_gpu_example_scales_the_paper_workers_to_zero(gpu_docs: list[dict[str, Any]]) -> None:
    scaled = by_kind(gpu_docs, "ScaledObject")
    counts = {entry: (scaled[f"scicustom-{entry}"]["spec"]["minReplicaCount"],
                      scaled[f"scicustom-{entry}"]["spec"]["maxReplicaCount"]) for entry in NEW_WORKERS}
    assert counts == {"worker-parse": (0, 4), "worker-extract-qa": (0, 8), "worker-extract-recipes": (0, 8),
                      "worker-extract-hyps": (0, 8), "worker-standing": (0, 1), "worker-standing-notify": (0, 2)}


def test_the_standing_worker_is_a_single_writer_on_the_default_values(default_docs: list[dict[str, Any]]) -> None:
    """It reads, changes and writes back the standing-build records: never two at once."""
    scaled = by_kind(default_docs, "ScaledObject")
    assert scaled["scicustom-worker-standing"]["spec"]["maxReplicaCount"] == 1
