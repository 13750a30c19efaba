"""charts/scicustom-stack: the self-contained install. Its upstream charts come from chart
repositories, out of reach here, so the render below leaves them out and checks this project's
part: the Kafka and Elasticsearch resources and the scicustom subchart wired to them."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path
from typing import Any

import yaml

from tests.unit.helm.conftest import CHART, ROOT, VALIDATOR, VALIDATOR_PYTHON, by_kind, documents, helm_template

STACK = ROOT / "charts" / "scicustom-stack"


def test_dependencies_are_pinned_and_switchable() -> None:
    deps = {d["name"]: d for d in yaml.safe_load((STACK / "Chart.yaml").read_text())["dependencies"]}
    assert {n: (d["version"], d.get("condition")) for n, d in deps.items()} == {
        "scicustom": ("0.1.0", None),
        "strimzi-kafka-operator": ("0.51.0", "kafka.enabled"),
        "seaweedfs": ("4.22.0", "seaweedfs.enabled"),
        "eck-operator": ("3.3.0", "elasticsearch.enabled"),
    }
    assert deps["scicustom"]["repository"] == "file://../scicustom"
    # the umbrella chart declares none, so it lints and renders without `helm dependency build`
    assert "dependencies" not in yaml.safe_load((CHART / "Chart.yaml").read_text())


def _stack_without_upstream(tmp_path: Path) -> Path:
    copy = tmp_path / "scicustom-stack"
    shutil.copytree(STACK, copy)
    chart = yaml.safe_load((copy / "Chart.yaml").read_text())
    chart["dependencies"] = [d for d in chart["dependencies"] if d["name"] == "scicustom"]
    (copy / "Chart.yaml").write_text(yaml.safe_dump(chart))
    shutil.copytree(CHART, copy / "charts" / "scicustom")
    return copy


def _render_without_upstream(tmp_path: Path, *args: str) -> list[dict[str, Any]]:
    done = helm_template(*args, chart=_stack_without_upstream(tmp_path))
    assert done.returncode == 0, done.stderr
    rendered = tmp_path / "stack.yaml"
    rendered.write_text(done.stdout)
    check = subprocess.run([str(VALIDATOR_PYTHON), str(VALIDATOR), "--k8s-version", "1.35.0",
                            "--ignore-missing-schemas", str(rendered)], capture_output=True, text=True, check=False)
    assert check.returncode == 0, check.stdout + check.stderr
    return documents(done.stdout)


def test_stack_wires_the_platform_to_its_own_infrastructure(
        tmp_path: Path, helm_gate: subprocess.CompletedProcess[str]) -> None:
    docs = _render_without_upstream(tmp_path)
    kafka = by_kind(docs, "Kafka")["scicustom-kafka"]
    assert kafka["spec"]["kafka"]["listeners"] == [{"name": "plain", "port": 9092, "type": "internal", "tls": False}]
    assert kafka["spec"]["kafka"]["config"]["offsets.topic.replication.factor"] == 1
    assert by_kind(docs, "KafkaNodePool")["scicustom-kafka-nodes"]["spec"]["roles"] == ["controller", "broker"]
    search = by_kind(docs, "Elasticsearch")["scicustom-search"]["spec"]
    assert search["version"] == "9.1.0" and search["nodeSets"][0]["count"] == 1

    data = by_kind(docs, "ConfigMap")["scicustom-settings"]["data"]
    assert data["SCICUSTOM_KAFKA_BOOTSTRAP"] == "scicustom-kafka-kafka-bootstrap:9092"
    assert data["SCICUSTOM_S3_ENDPOINT"] == "scicustom-seaweedfs-s3:8333"
    assert data["SCICUSTOM_ELASTICSEARCH_URL"] == "http://scicustom-search-es-http:9200"
    assert data["SCICUSTOM_ELASTICSEARCH_USERNAME"] == "elastic"
    job = by_kind(docs, "Job")["scicustom-cluster-init"]
    assert job["metadata"]["annotations"]["helm.sh/hook"] == "post-install,post-upgrade"
    env = {e["name"]: e for e in job["spec"]["template"]["spec"]["containers"][0]["env"]}
    assert env["SCICUSTOM_ELASTICSEARCH_PASSWORD"]["valueFrom"]["secretKeyRef"] == {
        "name": "scicustom-search-es-elastic-user", "key": "elastic"}


def test_stack_without_kafka_and_elasticsearch_renders_only_the_platform(
        tmp_path: Path, helm_gate: subprocess.CompletedProcess[str]) -> None:
    off = tmp_path / "off.yaml"
    off.write_text("kafka: {enabled: false}\nelasticsearch: {enabled: false}\n")
    kinds = {d["kind"] for d in _render_without_upstream(tmp_path, "-f", str(off))}
    assert not kinds & {"Kafka", "KafkaNodePool", "Elasticsearch"}
    assert {"Deployment", "ScaledObject", "InferenceService"} <= kinds


def test_stack_values_are_checked_too(tmp_path: Path, helm_gate: subprocess.CompletedProcess[str]) -> None:
    typo = tmp_path / "typo.yaml"
    typo.write_text("kafka: {replica: 3}\nscicustom: {settings: {grpcPort: x}}\n")
    done = helm_template("-f", str(typo), chart=_stack_without_upstream(tmp_path))
    assert done.returncode == 1
    assert "at '/kafka': additional properties 'replica' not allowed" in done.stderr
    assert "at '/settings/grpcPort': got string, want integer" in done.stderr  # the subchart's own schema
