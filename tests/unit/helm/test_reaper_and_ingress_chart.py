"""The build reaper as a CronJob (one sweep at a time, egress to Kafka and S3 only, no ingress), the
per-tenant build quota and reaper settings in the ConfigMap, and per-service ingress: a gRPC
service admits only the pods labelled as its callers and its own extra peers."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from scicustom.config import Settings
from tests.unit.helm.conftest import EXAMPLES, by_kind

Render = Callable[..., list[dict[str, Any]]]
GRPC_PORT = 50051


def _egress_ports(policy: dict[str, Any]) -> set[int]:
    return {p["port"] for rule in policy["spec"]["egress"] for p in rule["ports"]}


def test_the_reaper_is_a_single_instance_cronjob_sweeping_once(gpu_docs: list[dict[str, Any]]) -> None:
    cron = by_kind(gpu_docs, "CronJob")["scicustom-reaper"]["spec"]
    assert (cron["schedule"], cron["concurrencyPolicy"]) == ("*/5 * * * *", "Forbid")
    job = cron["jobTemplate"]["spec"]
    assert job["activeDeadlineSeconds"] == 600 and job["backoffLimit"] == 1
    pod = job["template"]
    assert pod["metadata"]["labels"]["app.kubernetes.io/component"] == "reaper"
    (container,) = pod["spec"]["containers"]
    assert container["command"] == ["scicustom", "--profile", "cluster", "reaper", "--once"]
    assert container["envFrom"] == [{"configMapRef": {"name": "scicustom-settings"}}]
    assert container["securityContext"]["readOnlyRootFilesystem"] is True
    assert not container.get("ports")  # nothing connects to it
    # The gpu example's Kafka is TLS with a CA: the reaper mounts it like every Kafka client.
    assert {"name": "kafka-ca", "mountPath": "/etc/scicustom/kafka-ca", "readOnly": True} in container["volumeMounts"]

    policy = by_kind(gpu_docs, "NetworkPolicy")["scicustom-reaper"]
    assert policy["spec"]["podSelector"]["matchLabels"]["app.kubernetes.io/component"] == "reaper"
    assert policy["spec"]["policyTypes"] == ["Ingress", "Egress"] and "ingress" not in policy["spec"]
    assert _egress_ports(policy) == {53, 9093, 9000, 4317}  # DNS, Kafka, S3, OTLP


def test_quota_and_reaper_settings_reach_the_settings_the_code_reads(render: Render, tmp_path: Path) -> None:
    values = tmp_path / "values.yaml"
    values.write_text("settings: {maxActiveBuildsPerTenant: 7}\n"
                      "reaper: {heartbeatTimeoutSeconds: 2400, maxRequeues: 5, schedule: '*/2 * * * *'}\n",
                      encoding="utf-8")
    docs = render(EXAMPLES / "small-cpu.yaml", values)
    data = by_kind(docs, "ConfigMap")["scicustom-settings"]["data"]
    settings = Settings(**{key.removeprefix("SCICUSTOM_").lower(): data[key] for key in (
        "SCICUSTOM_MAX_ACTIVE_BUILDS_PER_TENANT", "SCICUSTOM_BUILD_HEARTBEAT_TIMEOUT_S",
        "SCICUSTOM_BUILD_MAX_REQUEUES")})
    assert (settings.max_active_builds_per_tenant, settings.build_heartbeat_timeout_s,
            settings.build_max_requeues) == (7, 2400.0, 5)
    assert by_kind(docs, "CronJob")["scicustom-reaper"]["spec"]["schedule"] == "*/2 * * * *"
    defaults = by_kind(render(EXAMPLES / "small-cpu.yaml"), "ConfigMap")["scicustom-settings"]["data"]
    assert defaults["SCICUSTOM_MAX_ACTIVE_BUILDS_PER_TENANT"] == str(Settings().max_active_builds_per_tenant)

    off = render(EXAMPLES / "small-cpu.yaml", sets=("reaper.enabled=false",))
    assert not by_kind(off, "CronJob") and "scicustom-reaper" not in by_kind(off, "NetworkPolicy")


def test_each_grpc_service_admits_only_its_callers(render: Render, tmp_path: Path) -> None:
    values = tmp_path / "values.yaml"
    values.write_text(
        "services:\n  builds:\n    clients:\n"
        "      - namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: ingress-nginx}}\n",
        encoding="utf-8")
    docs = render(EXAMPLES / "small-cpu.yaml", values)
    policies = by_kind(docs, "NetworkPolicy")
    grpc_entries = [name for name, d in by_kind(docs, "Deployment").items()
                    if d["spec"]["template"]["spec"]["containers"][0]["name"] == "grpc"]
    assert len(grpc_entries) == 10
    for deployment in grpc_entries:
        service = deployment.removeprefix("scicustom-")
        rules = [r for r in policies[deployment]["spec"]["ingress"]
                 if {"protocol": "TCP", "port": GRPC_PORT} in r["ports"]]
        (rule,) = rules
        callers = [{"podSelector": {"matchLabels": {f"client.scicustom.io/{service}": "true"}}}]
        extra = [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "ingress-nginx"}}}]
        assert rule["from"] == callers + (extra if service == "builds" else []), service
        # No peer admits every pod of a namespace or the whole release.
        assert all(peer.get("podSelector", {}) != {} or "namespaceSelector" in peer for peer in rule["from"])
    # A worker takes no gRPC connection at all: only the scraper, on the metrics port.
    worker_ports = {p["port"] for r in policies["scicustom-worker-vote"]["spec"]["ingress"] for p in r["ports"]}
    assert worker_ports == {9464}
