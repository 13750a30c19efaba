"""The chart's Prometheus wiring: the metrics port setting, container and Service ports named
`metrics`, scrape annotations, the NetworkPolicy opening for the scraper, the optional ServiceMonitor
and Grafana dashboard ConfigMap, and the values that turn each off."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.unit.helm.conftest import CHART, EXAMPLES, by_kind, helm_template

Render = Callable[..., list[dict[str, Any]]]
METRICS_PORT = 9464


def _pod(deployment: dict[str, Any]) -> dict[str, Any]:
    return deployment["spec"]["template"]


def _measured(docs: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The Deployments of the gRPC services and workers (the ones that serve metrics)."""
    return {name: d for name, d in by_kind(docs, "Deployment").items()
            if _pod(d)["spec"]["containers"][0]["name"] in ("grpc", "worker")}


def test_every_service_and_worker_serves_metrics_on_a_named_port(render: Render) -> None:
    docs = render(EXAMPLES / "small-cpu.yaml")
    assert by_kind(docs, "ConfigMap")["scicustom-settings"]["data"]["SCICUSTOM_METRICS_PORT"] == str(METRICS_PORT)
    deployments, services = _measured(docs), by_kind(docs, "Service")
    assert len(deployments) == 24
    for name, deployment in deployments.items():
        pod = _pod(deployment)
        (container,) = pod["spec"]["containers"]
        assert {"name": "metrics", "containerPort": METRICS_PORT, "protocol": "TCP"} in container["ports"]
        annotations = pod["metadata"]["annotations"]
        assert (annotations["prometheus.io/scrape"], annotations["prometheus.io/port"],
                annotations["prometheus.io/path"]) == ("true", str(METRICS_PORT), "/metrics")
        # Its Service carries the port under the same name and selects exactly its pods.
        service = services[name]["spec"]
        assert {"name": "metrics", "port": METRICS_PORT, "targetPort": "metrics", "protocol": "TCP"} in service["ports"]
        assert service["selector"].items() <= pod["metadata"]["labels"].items()
    assert not by_kind(docs, "ServiceMonitor")  # off by default: it needs the operator's CRDs


def test_service_monitor_selects_every_service_with_a_metrics_port(render: Render) -> None:
    docs = render(EXAMPLES / "small-cpu.yaml", sets=(
        "metrics.serviceMonitor.enabled=true", "metrics.serviceMonitor.labels.release=kube-prometheus-stack",
        "metrics.serviceMonitor.namespace=monitoring", "metrics.serviceMonitor.interval=15s"))
    (monitor,) = by_kind(docs, "ServiceMonitor").values()
    assert monitor["apiVersion"] == "monitoring.coreos.com/v1"
    assert monitor["metadata"]["namespace"] == "monitoring"
    assert monitor["metadata"]["labels"]["release"] == "kube-prometheus-stack"
    spec = monitor["spec"]
    assert spec["namespaceSelector"] == {"matchNames": ["scicustom"]}
    (endpoint,) = spec["endpoints"]
    assert (endpoint["port"], endpoint["path"], endpoint["interval"], endpoint["scrapeTimeout"]) == (
        "metrics", "/metrics", "15s", "10s")
    selector = spec["selector"]["matchLabels"]
    selected = {name for name, svc in by_kind(docs, "Service").items()
                if selector.items() <= svc["metadata"]["labels"].items()}
    with_metrics = {name for name, svc in by_kind(docs, "Service").items()
                    if any(p["name"] == "metrics" for p in svc["spec"]["ports"])}
    assert selected == with_metrics == set(_measured(docs))


def test_grafana_dashboard_configmap_ships_the_dashboard_file(render: Render) -> None:
    docs = render(EXAMPLES / "small-cpu.yaml", sets=("metrics.grafanaDashboard.enabled=true",
                                                     "metrics.grafanaDashboard.annotations.grafana_folder=SciCustom"))
    dashboard = by_kind(docs, "ConfigMap")["scicustom-grafana-dashboard"]
    assert dashboard["metadata"]["labels"]["grafana_dashboard"] == "1"
    assert dashboard["metadata"]["annotations"] == {"grafana_folder": "SciCustom"}
    shipped = json.loads(dashboard["data"]["scicustom.json"])
    assert shipped == json.loads((CHART / "dashboards" / "scicustom.json").read_text(encoding="utf-8"))


def test_network_policies_open_the_metrics_port_to_the_scraper_namespaces_only(render: Render, tmp_path: Path) -> None:
    docs = render(EXAMPLES / "small-cpu.yaml", sets=("metrics.scraperNamespaces={monitoring,observability}",))
    prometheus = {"matchLabels": {"app.kubernetes.io/name": "prometheus"}}
    scrape = {"from": [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": ns}},
                        "podSelector": prometheus} for ns in ("monitoring", "observability")],
              "ports": [{"protocol": "TCP", "port": METRICS_PORT}]}
    policies = by_kind(docs, "NetworkPolicy")
    for name in _measured(docs):
        assert scrape in policies[name]["spec"]["ingress"]
    # An empty selector (Helm merges maps: its default labels are removed with null): every pod of them.
    any_pod = tmp_path / "any-scraper-pod.yaml"
    any_pod.write_text("metrics: {scraperPodSelector: {matchLabels: null}}\n", encoding="utf-8")
    opened = by_kind(render(EXAMPLES / "small-cpu.yaml", any_pod), "NetworkPolicy")["scicustom-worker-tag"]
    assert opened["spec"]["ingress"] == [{"from": [{"namespaceSelector": {"matchLabels": {
        "kubernetes.io/metadata.name": "monitoring"}}}], "ports": [{"protocol": "TCP", "port": METRICS_PORT}]}]
    no_scraper = tmp_path / "no-scraper.yaml"
    no_scraper.write_text("metrics: {scraperNamespaces: []}\n", encoding="utf-8")
    closed = render(EXAMPLES / "small-cpu.yaml", no_scraper)
    assert "ingress" not in by_kind(closed, "NetworkPolicy")["scicustom-worker-tag"]["spec"]


def test_metrics_off_removes_ports_annotations_worker_services_and_the_endpoint(render: Render) -> None:
    docs = render(EXAMPLES / "small-cpu.yaml", sets=(
        "metrics.enabled=false", "metrics.serviceMonitor.enabled=true", "metrics.grafanaDashboard.enabled=true"))
    assert by_kind(docs, "ConfigMap")["scicustom-settings"]["data"]["SCICUSTOM_METRICS_PORT"] == "0"
    for deployment in _measured(docs).values():
        pod = _pod(deployment)
        assert "prometheus.io/scrape" not in pod["metadata"]["annotations"]
        assert all(p["name"] != "metrics" for p in pod["spec"]["containers"][0]["ports"])
    assert all(not n.startswith("scicustom-worker-") for n in by_kind(docs, "Service"))
    assert not by_kind(docs, "ServiceMonitor") and "scicustom-grafana-dashboard" not in by_kind(docs, "ConfigMap")


def test_a_metrics_port_equal_to_the_grpc_port_is_refused() -> None:
    done = helm_template("-f", str(EXAMPLES / "small-cpu.yaml"), "--set", "metrics.port=50051")
    assert done.returncode != 0
    assert "metrics.port 50051 is settings.grpcPort" in done.stderr
