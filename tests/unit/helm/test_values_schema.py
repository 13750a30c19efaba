"""values.schema.json: additionalProperties false at every level users write, types checked, and
no field that could hold a secret value."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.unit.helm.conftest import CHART, EXAMPLES, HELM, helm_template


def _rejected(tmp_path: Path, values: str) -> str:
    path = tmp_path / "values.yaml"
    path.write_text(values)
    done = helm_template("-f", str(EXAMPLES / "gpu.yaml"), "-f", str(path))
    assert done.returncode != 0, f"accepted:\n{values}"
    assert "values don't meet the specifications of the schema" in done.stderr
    return done.stderr


@pytest.mark.parametrize(("values", "message"), [
    ("infrastucture: {}\n", "at '': additional properties 'infrastucture' not allowed"),
    ("settings:\n  topicPrefx: x\n", "at '/settings': additional properties 'topicPrefx' not allowed"),
    ("infrastructure:\n  kafka:\n    sasl:\n      mechansim: PLAIN\n",
     "at '/infrastructure/kafka/sasl': additional properties 'mechansim' not allowed"),
    ("services:\n  worker-tag:\n    autoscaling:\n      lagTreshold: 10\n",
     "at '/services/worker-tag/autoscaling': additional properties 'lagTreshold' not allowed"),
    ("services:\n  jury:\n    resources:\n      limits:\n        gpu: 1\n",
     "at '/services/jury/resources/limits': additional properties 'gpu' not allowed"),
    ("services:\n  tagger-model:\n    nodeSelectors: {a: b}\n",
     "at '/services/tagger-model': additional properties 'nodeSelectors' not allowed"),
    ("otel:\n  sampler: always_on\n", "at '/otel': additional properties 'sampler' not allowed"),
    ("networkPolicy:\n  dnsPeers:\n    - namespaceSelektor: {}\n",
     "at '/networkPolicy/dnsPeers/0': additional properties 'namespaceSelektor' not allowed"),
])
def test_typo_is_rejected_with_its_path(tmp_path: Path, values: str, message: str) -> None:
    assert message in _rejected(tmp_path, values)


@pytest.mark.parametrize(("values", "message"), [
    ('settings:\n  grpcPort: "fifty"\n', "at '/settings/grpcPort': got string, want integer"),
    ("services:\n  ontology:\n    replicas: two\n", "at '/services/ontology/replicas': got string, want integer"),
    ("services:\n  worker-vote:\n    autoscaling:\n      enabled: yes please\n",
     "at '/services/worker-vote/autoscaling/enabled': got string, want boolean"),
    ("services:\n  builds:\n    command: scicustom service builds\n",
     "at '/services/builds/command': got string, want array"),
    ("services:\n  tagger-model:\n    gpus: 1.5\n", "at '/services/tagger-model/gpus': got number, want integer"),
    ("services:\n  worker-index:\n    stage: indexing\n", "at '/services/worker-index/stage'"),
    ("services:\n  ingest:\n    egress: [kafka, internet]\n", "at '/services/ingest/egress/1'"),
    ("services:\n  jury:\n    resources:\n      requests:\n        memory: 512MB\n",
     "at '/services/jury/resources/requests/memory'"),
    ("infrastructure:\n  kafka:\n    sasl:\n      enabled: true\n      secretName: ''\n",
     "at '/infrastructure/kafka/sasl/secretName': minLength: got 0, want 1"),
])
def test_wrong_type_or_value_is_rejected(tmp_path: Path, values: str, message: str) -> None:
    assert message in _rejected(tmp_path, values)


@pytest.mark.parametrize(("values", "message"), [
    ("infrastructure:\n  s3:\n    secretKey: test-s3-secret-value-5c1e\n",
     "additional properties 'secretKey' not allowed"),
    ("infrastructure:\n  llm:\n    apiKey: sk-test-llm-key-77aa\n", "additional properties 'apiKey' not allowed"),
    ("services:\n  jury:\n    env:\n      SCICUSTOM_LLM_API_KEY: sk-test-llm-key-77aa\n",
     "invalid propertyName 'SCICUSTOM_LLM_API_KEY'"),
    ("otel:\n  env:\n    OTEL_EXPORTER_OTLP_HEADERS: authorization=Bearer test-token-9f\n",
     "invalid propertyName 'OTEL_EXPORTER_OTLP_HEADERS'"),
])
def test_a_secret_value_has_no_place_in_values(tmp_path: Path, values: str, message: str) -> None:
    assert message in _rejected(tmp_path, values)


def test_lint_strict_rejects_a_typo_too(tmp_path: Path) -> None:
    path = tmp_path / "typo.yaml"
    path.write_text("services:\n  worker-tag:\n    autoscaling:\n      lagTreshold: 10\n")
    done = subprocess.run([str(HELM), "lint", "--strict", str(CHART), "-f", str(path)], capture_output=True,
                          text=True, check=False)
    assert done.returncode == 1
    assert "additional properties 'lagTreshold' not allowed" in done.stdout + done.stderr


def test_a_new_service_entry_is_checked_by_its_kind(tmp_path: Path) -> None:
    stderr = _rejected(tmp_path, "services:\n  extra:\n    kind: worker\n    stage: tag\n    command: [x]\n")
    assert "at '/services/extra': 'allOf' failed" in stderr
    assert "missing properties" in stderr
