"""The rendered examples against the platform contract (platform.md): every service and worker,
gRPC probes on the health service, a ScaledObject per stage, the tagger InferenceService, and
pods that are locked down and carry no secret value."""

from __future__ import annotations

import re
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from scicustom.config import Settings
from tests.unit.helm.conftest import EXAMPLES, VALIDATOR, VALIDATOR_PYTHON, by_kind, documents, helm_template

# platform.md, copied by hand: service name -> gRPC service the health check reports.
GRPC_SERVICES = {
    "ontology": "scicustom.ontology.v1.OntologyService",
    "tagger": "scicustom.tagger.v1.TaggerService",
    "jury": "scicustom.jury.v1.JuryService",
    "retrieval": "scicustom.retrieval.v1.RetrievalService",
    "selector": "scicustom.selector.v1.SelectorService",
    "generator": "scicustom.generator.v1.GeneratorService",
    "scorer": "scicustom.scorers.v1.ScorerService",
    "builds": "scicustom.builds.v1.BuildService",
    "ingest": "scicustom.ingest.v1.IngestService",
    "papers": "scicustom.papers.v1.PaperService",
}
# stage -> topic it consumes (services/scicustom/workers/topics.py).
STAGES = {
    "tag": "scicustom.ingest.items-imported",
    "index": "scicustom.ingest.items-tagged",
    "parse": "scicustom.paper.submitted",
    "extract-qa": "scicustom.paper.parsed",
    "extract-recipes": "scicustom.paper.parsed",
    "extract-hypotheses": "scicustom.paper.parsed",
    "standing": "scicustom.ingest.items-indexed",
    "standing-notify": "scicustom.build.completed",
    "vote": "scicustom.build.requested",
    "candidates": "scicustom.build.units-voted",
    "cutoff": "scicustom.build.candidates-ready",
    "select": "scicustom.build.cutoff-found",
    "generate": "scicustom.build.subset-selected",
    "complete": "scicustom.build.benchmark-generated",
}
# stage -> its values entry: worker-<stage>, shortened where that exceeds the schema's 22 characters.
WORKERS = {stage: f"worker-{stage}" for stage in STAGES} | {"extract-hypotheses": "worker-extract-hyps"}
PORT = 50051
METRICS_PORT = 9464
METRICS_CONTAINER_PORT = {"name": "metrics", "containerPort": METRICS_PORT, "protocol": "TCP"}
METRICS_SERVICE_PORT = {"name": "metrics", "port": METRICS_PORT, "targetPort": "metrics", "protocol": "TCP"}
METRICS_SCRAPE = {"from": [{"namespaceSelector": {"matchLabels": {"kubernetes.io/metadata.name": "monitoring"}},
                            "podSelector": {"matchLabels": {"app.kubernetes.io/name": "prometheus"}}}],
                  "ports": [{"protocol": "TCP", "port": METRICS_PORT}]}


def _container(deployment: dict[str, Any]) -> dict[str, Any]:
    containers: list[dict[str, Any]] = deployment["spec"]["template"]["spec"]["containers"]
    assert len(containers) == 1
    return containers[0]


def test_kinds_and_counts_of_the_gpu_install(gpu_docs: list[dict[str, Any]]) -> None:
    counts: dict[str, int] = {}
    for doc in gpu_docs:
        counts[doc["kind"]] = counts.get(doc["kind"], 0) + 1
    assert counts == {
        "ServiceAccount": 3, "ConfigMap": 1, "Service": 24, "Deployment": 24, "HorizontalPodAutoscaler": 10,
        "InferenceService": 1, "NetworkPolicy": 27, "PodDisruptionBudget": 24, "ScaledObject": 14,
        "TriggerAuthentication": 1, "Job": 1, "CronJob": 1,
    }


def test_every_grpc_service_has_a_deployment_an_h2c_service_and_an_hpa(gpu_docs: list[dict[str, Any]]) -> None:
    deployments, services = by_kind(gpu_docs, "Deployment"), by_kind(gpu_docs, "Service")
    hpas = by_kind(gpu_docs, "HorizontalPodAutoscaler")
    for name in GRPC_SERVICES:
        full = f"scicustom-{name}"
        assert _container(deployments[full])["command"] == [
            "scicustom", "--profile", "cluster", "service", name, "--host", "0.0.0.0"]
        port, metrics = services[full]["spec"]["ports"]
        assert port == {"name": "grpc", "port": PORT, "targetPort": "grpc", "protocol": "TCP",
                        "appProtocol": "kubernetes.io/h2c"}
        assert metrics == METRICS_SERVICE_PORT
        assert hpas[full]["spec"]["scaleTargetRef"] == {"apiVersion": "apps/v1", "kind": "Deployment", "name": full}
        # an autoscaled Deployment leaves its replica count to the HPA
        assert "replicas" not in deployments[full]["spec"]
    # Workers have a headless Service of their own, for their metrics port only.
    assert sorted(services) == sorted(f"scicustom-{n}" for n in [*GRPC_SERVICES, *WORKERS.values()])
    for worker in WORKERS.values():
        spec = services[f"scicustom-{worker}"]["spec"]
        assert (spec["clusterIP"], spec["ports"]) == ("None", [METRICS_SERVICE_PORT])


def test_every_worker_stage_has_a_deployment_with_the_health_and_metrics_ports_and_a_scaled_object(
        gpu_docs: list[dict[str, Any]]) -> None:
    deployments, scaled = by_kind(gpu_docs, "Deployment"), by_kind(gpu_docs, "ScaledObject")
    assert sorted(scaled) == sorted(f"scicustom-{w}" for w in WORKERS.values())
    for stage, topic in STAGES.items():
        full = f"scicustom-{WORKERS[stage]}"
        container = _container(deployments[full])
        assert container["command"] == ["scicustom", "--profile", "cluster", "worker", stage]
        assert container["ports"] == [{"name": "health", "containerPort": PORT, "protocol": "TCP"},
                                      METRICS_CONTAINER_PORT]
        spec = scaled[full]["spec"]
        assert spec["scaleTargetRef"] == {"name": full}
        (trigger,) = spec["triggers"]
        assert trigger["type"] == "kafka"
        assert trigger["authenticationRef"] == {"name": "scicustom-kafka"}
        meta = trigger["metadata"]
        assert meta["consumerGroup"] == f"scicustom-{stage}"
        assert meta["topic"] == topic
        assert meta["bootstrapServers"] == "kafka-kafka-bootstrap.kafka.svc.cluster.local:9093"
        assert (meta["sasl"], meta["tls"]) == ("scram_sha512", "enable")
        assert all(isinstance(v, str) for v in meta.values())
    # values from k8s/examples/gpu.yaml over the chart defaults
    tag, generate = scaled["scicustom-worker-tag"]["spec"], scaled["scicustom-worker-generate"]["spec"]
    assert (tag["minReplicaCount"], tag["maxReplicaCount"]) == (1, 12)
    assert tag["triggers"][0]["metadata"]["lagThreshold"] == "200"
    assert (generate["minReplicaCount"], generate["maxReplicaCount"], generate["cooldownPeriod"]) == (0, 12, 300)
    assert generate["triggers"][0]["metadata"]["lagThreshold"] == "2"
    auth = by_kind(gpu_docs, "TriggerAuthentication")["scicustom-kafka"]["spec"]["secretTargetRef"]
    assert {a["parameter"]: (a["name"], a["key"]) for a in auth} == {
        "username": ("scicustom-kafka", "username"), "password": ("scicustom-kafka", "password"),
        "ca": ("scicustom-kafka-ca", "ca.crt")}


def test_every_process_is_probed_on_the_grpc_health_service(gpu_docs: list[dict[str, Any]]) -> None:
    expected = {f"scicustom-{n}": s for n, s in GRPC_SERVICES.items()}
    expected |= {f"scicustom-{WORKERS[s]}": f"scicustom.worker.{s}" for s in STAGES}
    deployments = by_kind(gpu_docs, "Deployment")
    assert sorted(deployments) == sorted(expected)
    for name, health in expected.items():
        container = _container(deployments[name])
        assert container["startupProbe"]["grpc"] == {"port": PORT, "service": health}
        assert container["readinessProbe"]["grpc"] == {"port": PORT, "service": health}
        assert container["livenessProbe"]["grpc"] == {"port": PORT}  # overall status ""


def test_pods_are_non_root_read_only_and_bounded(gpu_docs: list[dict[str, Any]]) -> None:
    pods = [d["spec"]["template"]["spec"] for d in gpu_docs if d["kind"] in ("Deployment", "Job")]
    assert len(pods) == 25
    for pod in pods:
        assert pod["securityContext"]["runAsNonRoot"] is True
        assert pod["securityContext"]["runAsUser"] == 10001
        assert pod["securityContext"]["seccompProfile"] == {"type": "RuntimeDefault"}
        assert pod["automountServiceAccountToken"] is False
        for container in pod["containers"]:
            assert container["securityContext"] == {
                "allowPrivilegeEscalation": False, "readOnlyRootFilesystem": True, "runAsNonRoot": True,
                "capabilities": {"drop": ["ALL"]}}
            assert set(container["resources"]) == {"requests", "limits"}
            assert {"cpu", "memory"} <= set(container["resources"]["limits"])


def test_workers_get_time_to_finish_and_commit(gpu_docs: list[dict[str, Any]]) -> None:
    deployments = by_kind(gpu_docs, "Deployment")
    grace = {s: deployments[f"scicustom-{WORKERS[s]}"]["spec"]["template"]["spec"]["terminationGracePeriodSeconds"]
             for s in STAGES}
    assert grace == {"tag": 120, "index": 120, "parse": 120, "extract-qa": 900, "extract-recipes": 780,
                     "extract-hypotheses": 420, "vote": 420, "candidates": 180, "cutoff": 120, "select": 180,
                     "generate": 900, "complete": 120, "standing": 120, "standing-notify": 120}
    assert deployments["scicustom-builds"]["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] == 30


def test_settings_configmap_and_otel_from_labels_and_values(gpu_docs: list[dict[str, Any]]) -> None:
    data = by_kind(gpu_docs, "ConfigMap")["scicustom-settings"]["data"]
    assert data["SCICUSTOM_PROFILE"] == "cluster"
    assert data["SCICUSTOM_GRPC_HOST"] == "0.0.0.0" and data["SCICUSTOM_GRPC_PORT"] == "50051"
    assert data["SCICUSTOM_TAGGER_URL"] == "scicustom-tagger-model-predictor.scicustom.svc.cluster.local:80"
    assert data["SCICUSTOM_TAGGER_PROTOCOL"] == "grpc"
    assert data["SCICUSTOM_KAFKA_SECURITY_PROTOCOL"] == "SASL_SSL"
    assert data["SCICUSTOM_BUILD_SERVICE_ADDRESS"] == "scicustom-builds:50051"
    assert data["OTEL_EXPORTER_OTLP_ENDPOINT"] == "http://otel-collector.observability.svc.cluster.local:4317"
    assert (data["OTEL_TRACES_SAMPLER"], data["OTEL_TRACES_SAMPLER_ARG"]) == ("parentbased_traceidratio", "0.2")
    assert data["HF_HUB_OFFLINE"] == "1"
    # Production durability from values, not hard-coded single-node settings.
    assert (data["SCICUSTOM_KAFKA_REPLICATION_FACTOR"], data["SCICUSTOM_ELASTICSEARCH_REPLICAS"]) == ("3", "1")
    assert data["SCICUSTOM_KAFKA_MAX_POLL_INTERVAL_MS"] == "900000"
    settings = Settings.model_validate({k.removeprefix("SCICUSTOM_").lower(): v for k, v in data.items()
                                        if k.startswith("SCICUSTOM_")})
    assert (settings.kafka_replication_factor, settings.elasticsearch_replicas) == (3, 1)
    for name, deployment in by_kind(gpu_docs, "Deployment").items():
        env = {e["name"]: e for e in _container(deployment)["env"]}
        assert env["OTEL_SERVICE_NAME"]["valueFrom"] == {
            "fieldRef": {"fieldPath": "metadata.labels['app.kubernetes.io/component']"}}
        component = deployment["spec"]["template"]["metadata"]["labels"]["app.kubernetes.io/component"]
        assert name == f"scicustom-{component}"
        assert "deployment.environment.name=production" in env["OTEL_RESOURCE_ATTRIBUTES"]["value"]


def test_the_tagger_runs_on_triton_with_a_gpu(gpu_docs: list[dict[str, Any]]) -> None:
    isvc = by_kind(gpu_docs, "InferenceService")["scicustom-tagger-model"]
    predictor = isvc["spec"]["predictor"]
    model = predictor["model"]
    assert model["modelFormat"] == {"name": "triton"}
    assert model["runtime"] == "kserve-tritonserver"
    assert model["protocolVersion"] == "grpc-v2"
    assert model["storageUri"] == "s3://scicustom/serving/tagger-triton"
    assert model["image"] == "ghcr.io/scicustom/tagger-triton:0.1.0"
    assert model["resources"]["limits"]["nvidia.com/gpu"] == "1"
    assert model["resources"]["requests"]["nvidia.com/gpu"] == "1"
    assert model["ports"] == [{"name": "h2c", "containerPort": 9000, "protocol": "TCP"}]
    assert predictor["nodeSelector"] == {"nvidia.com/gpu.present": "true"}
    assert predictor["tolerations"] == [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
    assert predictor["serviceAccountName"] == "scicustom-tagger-model"
    account = by_kind(gpu_docs, "ServiceAccount")["scicustom-tagger-model"]
    assert account["secrets"] == [{"name": "scicustom-s3"}]
    assert account["metadata"]["annotations"]["serving.kserve.io/s3-endpoint"] == "minio.storage.svc.cluster.local:9000"


def test_the_cpu_variant_runs_the_projects_model_server(small_docs: list[dict[str, Any]]) -> None:
    predictor = by_kind(small_docs, "InferenceService")["scicustom-tagger-model"]["spec"]["predictor"]
    assert "model" not in predictor
    (container,) = predictor["containers"]
    assert container["name"] == "kserve-container"
    assert container["image"] == "ghcr.io/scicustom/tagger:0.1.0"
    assert container["command"][:3] == ["scicustom", "serve", "tagger"]
    env = {e["name"]: e.get("value") for e in container["env"]}
    assert env["STORAGE_URI"] == "s3://scicustom/serving/tagger-home"
    assert env["SCICUSTOM_HOME"] == "/mnt"
    assert "nvidia.com/gpu" not in container["resources"]["limits"]


def test_small_cpu_has_no_autoscalers_and_fixed_replicas(small_docs: list[dict[str, Any]]) -> None:
    kinds = {d["kind"] for d in small_docs}
    assert not kinds & {"HorizontalPodAutoscaler", "ScaledObject", "TriggerAuthentication"}
    assert {d["spec"]["replicas"] for d in by_kind(small_docs, "Deployment").values()} == {1}


def test_network_policies_allow_only_the_needed_traffic(gpu_docs: list[dict[str, Any]]) -> None:
    policies = by_kind(gpu_docs, "NetworkPolicy")
    jury = policies["scicustom-jury"]["spec"]
    assert jury["policyTypes"] == ["Ingress", "Egress"]
    ingress, scrape = jury["ingress"]
    assert ingress["ports"] == [{"protocol": "TCP", "port": PORT}]
    assert scrape == METRICS_SCRAPE
    # Only the pods labelled as the jury's callers, here or in the client namespace.
    callers = {"matchLabels": {"client.scicustom.io/jury": "true"}}
    assert ingress["from"] == [{"podSelector": callers}, {"namespaceSelector": {
        "matchLabels": {"kubernetes.io/metadata.name": "scicustom-clients"}}, "podSelector": callers}]
    ports = {p["port"] for rule in jury["egress"] for p in rule["ports"]}
    assert ports == {53, 9000, 4000, 4317}  # DNS, S3, the LLM gateway, OTLP; no Kafka, no Elasticsearch

    worker = policies["scicustom-worker-tag"]["spec"]
    # Nothing may connect to a worker but the Prometheus of the monitoring namespace, to its metrics port.
    assert worker["ingress"] == [METRICS_SCRAPE] and "Ingress" in worker["policyTypes"]
    egress_ports = {p["port"] for rule in worker["egress"] for p in rule["ports"]}
    assert egress_ports == {53, 9093, 9000, 8080, 8081, 4317}  # DNS, Kafka, S3 and Triton, the model, OTLP
    model_rule = next(r for r in worker["egress"] if {"port": 8081, "protocol": "TCP"} in r["ports"])
    assert model_rule["to"] == [{"podSelector": {"matchLabels": {
        "serving.kserve.io/inferenceservice": "scicustom-tagger-model"}}}]

    model = policies["scicustom-tagger-model"]["spec"]
    clients = model["ingress"][0]["from"][0]["podSelector"]["matchExpressions"][1]["values"]
    assert clients == ["tagger", "worker-tag"]


def test_cluster_init_is_a_hook_job_running_cluster_init(gpu_docs: list[dict[str, Any]]) -> None:
    job = by_kind(gpu_docs, "Job")["scicustom-cluster-init"]
    assert job["metadata"]["annotations"]["helm.sh/hook"] == "pre-install,pre-upgrade"
    container = job["spec"]["template"]["spec"]["containers"][0]
    assert container["command"] == ["scicustom", "--profile", "cluster", "cluster", "init", "--partitions", "12"]
    env = {e["name"]: e for e in container["env"]}
    assert env["SCICUSTOM_KAFKA_BOOTSTRAP"]["value"] == "kafka-kafka-bootstrap.kafka.svc.cluster.local:9093"
    assert env["SCICUSTOM_S3_SECRET_KEY"]["valueFrom"]["secretKeyRef"]["name"] == "scicustom-s3"
    hooks = [d for d in gpu_docs if "helm.sh/hook" in d["metadata"].get("annotations", {})]
    assert sorted((d["kind"], d["metadata"]["annotations"]["helm.sh/hook-weight"]) for d in hooks) == [
        ("Job", "0"), ("NetworkPolicy", "-10"), ("ServiceAccount", "-10")]


SECRETISH = re.compile(r"KEY|SECRET|PASSWORD|TOKEN|HEADERS")


def _secretish(name: str) -> bool:
    """A name that may carry a secret value; a `_FILE` setting is the path of a file mounted from a
    Secret (SCICUSTOM_AUTH_TOKENS_FILE, SCICUSTOM_TLS_KEY_FILE), never its content."""
    return bool(SECRETISH.search(name)) and not name.endswith("_FILE")


def _env_lists(doc: dict[str, Any]) -> list[list[dict[str, Any]]]:
    found: list[list[dict[str, Any]]] = []

    def walk(node: Any) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "env" and isinstance(value, list):
                    found.append(value)
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(doc)
    return found


def test_no_secret_value_in_any_manifest(tmp_path: Path, render: Callable[..., list[dict[str, Any]]]) -> None:
    override = tmp_path / "secret-names.yaml"
    override.write_text(
        "infrastructure:\n"
        "  s3: {credentialsSecret: test-s3-creds-4e1b}\n"
        "  llm: {apiKeySecret: test-llm-key-9d2c}\n"
        "  elasticsearch: {username: elastic, passwordSecret: test-es-pass-0a7f}\n"
        "otel:\n  headersSecret: {name: test-otlp-headers-3b8e, key: headers}\n"
        "services:\n  jury:\n    secretEnv:\n      JUDGE_TOKEN: {name: test-judge-token-61f0, key: token}\n")
    docs = render(EXAMPLES / "gpu.yaml", override)
    assert "Secret" not in {d["kind"] for d in docs}
    configmap = by_kind(docs, "ConfigMap")["scicustom-settings"]["data"]
    assert not [k for k in configmap if _secretish(k)]
    secretish_env = 0
    for doc in docs:
        for env in _env_lists(doc):
            for var in env:
                if _secretish(var["name"]):
                    secretish_env += 1
                    assert "value" not in var, f"{doc['kind']}/{doc['metadata']['name']}: {var['name']}"
                    assert "secretKeyRef" in var["valueFrom"]
    assert secretish_env > 0
    # the secret names appear, only ever as references
    text = str(docs)
    for name in ("test-s3-creds-4e1b", "test-llm-key-9d2c", "test-es-pass-0a7f", "test-otlp-headers-3b8e",
                 "test-judge-token-61f0"):
        assert f"'name': '{name}'" in text
        assert text.count(name) == text.count(f"'name': '{name}'")


def _validate(tmp_path: Path, docs_text: str) -> str:
    rendered = tmp_path / "rendered.yaml"
    rendered.write_text(docs_text)
    done = subprocess.run([str(VALIDATOR_PYTHON), str(VALIDATOR), "--k8s-version", "1.35.0", str(rendered)],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stderr


def test_switched_off_features_leave_valid_manifests(
        tmp_path: Path, helm_gate: subprocess.CompletedProcess[str]) -> None:
    done = helm_template("-f", str(EXAMPLES / "small-cpu.yaml"), "--set", "networkPolicy.enabled=false",
                         "--set", "otel.enabled=false", "--set", "clusterInit.enabled=false",
                         "--set", "services.tagger-model.enabled=false")
    assert done.returncode == 0, done.stderr
    docs = documents(done.stdout)
    kinds = {d["kind"] for d in docs}
    assert not kinds & {"NetworkPolicy", "Job", "InferenceService"}
    data = by_kind(docs, "ConfigMap")["scicustom-settings"]["data"]
    assert "SCICUSTOM_TAGGER_URL" not in data  # the services fall back to the in-process tagger
    assert data["OTEL_SDK_DISABLED"] == "true" and "OTEL_EXPORTER_OTLP_ENDPOINT" not in data
    assert _validate(tmp_path, done.stdout).strip().endswith("0 error(s), Kubernetes 1.35.0 schemas")


def test_sasl_without_tls_and_triton_over_http(tmp_path: Path, helm_gate: subprocess.CompletedProcess[str]) -> None:
    done = helm_template("-f", str(EXAMPLES / "gpu.yaml"), "--set", "infrastructure.kafka.tls.enabled=false",
                         "--set", "infrastructure.kafka.sasl.mechanism=PLAIN",
                         "--set", "services.tagger-model.protocol=http")
    assert done.returncode == 0, done.stderr
    docs = documents(done.stdout)
    data = by_kind(docs, "ConfigMap")["scicustom-settings"]["data"]
    assert data["SCICUSTOM_KAFKA_SECURITY_PROTOCOL"] == "SASL_PLAINTEXT"
    assert data["SCICUSTOM_TAGGER_PROTOCOL"] == "http"
    assert "SCICUSTOM_KAFKA_SSL_CAFILE" not in data
    trigger = by_kind(docs, "ScaledObject")["scicustom-worker-tag"]["spec"]["triggers"][0]["metadata"]
    assert trigger["sasl"] == "plaintext" and "tls" not in trigger
    auth = by_kind(docs, "TriggerAuthentication")["scicustom-kafka"]["spec"]["secretTargetRef"]
    assert [a["parameter"] for a in auth] == ["username", "password"]
    model = by_kind(docs, "InferenceService")["scicustom-tagger-model"]["spec"]["predictor"]["model"]
    assert (model["protocolVersion"], model["ports"]) == ("v2", [{"name": "http1", "containerPort": 8080,
                                                                 "protocol": "TCP"}])
    _validate(tmp_path, done.stdout)
