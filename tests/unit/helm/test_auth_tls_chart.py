"""The chart's authentication and TLS: the tokens Secret mounted whole into every gRPC service (so a
rotation reaches it), the explicit opt-out, TLS with the cert-manager Certificate and plaintext
health probes, and the stack chart's generated tokens Secret."""

from __future__ import annotations

import base64
import hashlib
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

from scicustom.grpc_server.auth_tokens import parse_tokens
from tests.unit.helm.conftest import EXAMPLES, VALIDATOR, VALIDATOR_PYTHON, by_kind, helm_template
from tests.unit.helm.test_stack_chart import _render_without_upstream

Render = Callable[..., list[dict[str, Any]]]
TLS = ("tls.enabled=true", "tls.mutual=true", "tls.certManager.enabled=true",
       "tls.certManager.issuerRef.name=platform-ca")


def _pods(docs: list[dict[str, Any]], kind: str) -> dict[str, dict[str, Any]]:
    """The pod specs of the gRPC services (kind "grpc") or the workers (kind "worker")."""
    return {name: d["spec"]["template"]["spec"] for name, d in by_kind(docs, "Deployment").items()
            if d["spec"]["template"]["spec"]["containers"][0]["name"] == kind}


def _env(pod: dict[str, Any]) -> dict[str, Any]:
    return {e["name"]: e.get("value") for e in pod["containers"][0]["env"]}


def _mounts(pod: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {m["name"]: m for m in pod["containers"][0]["volumeMounts"]}


def _volumes(pod: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {v["name"]: v for v in pod["volumes"]}


def test_every_grpc_service_reads_the_tokens_secret_mounted_whole(render: Render) -> None:
    docs = render(EXAMPLES / "small-cpu.yaml")
    services, workers = _pods(docs, "grpc"), _pods(docs, "worker")
    assert len(services) == 10 and workers
    for name, pod in services.items():
        mount = _mounts(pod)["auth-tokens"]
        assert mount == {"name": "auth-tokens", "mountPath": "/etc/scicustom/auth", "readOnly": True}, name
        assert "subPath" not in mount  # a subPath mount never sees the Secret change
        secret = _volumes(pod)["auth-tokens"]["secret"]
        assert secret["secretName"] == "scicustom-auth-tokens" and secret["defaultMode"] == 0o440
        assert _env(pod)["SCICUSTOM_AUTH_TOKENS_FILE"] == "/etc/scicustom/auth/tokens"
        assert "SCICUSTOM_AUTH_DISABLED" not in _env(pod) and "grpc-tls" not in _volumes(pod)
    for pod in workers.values():  # workers serve no RPC: no tokens
        assert "auth-tokens" not in _volumes(pod) and "SCICUSTOM_AUTH_TOKENS_FILE" not in _env(pod)
    assert not by_kind(docs, "Certificate")
    assert all(p["appProtocol"] == "kubernetes.io/h2c" for s in by_kind(docs, "Service").values()
               for p in s["spec"]["ports"] if p["name"] == "grpc")


def test_auth_off_is_said_explicitly(render: Render) -> None:
    docs = render(EXAMPLES / "small-cpu.yaml", sets=("auth.enabled=false",))
    for pod in _pods(docs, "grpc").values():
        assert _env(pod)["SCICUSTOM_AUTH_DISABLED"] == "true" and "auth-tokens" not in _volumes(pod)


def test_mutual_tls_with_cert_manager_and_plaintext_health_probes(render: Render, tmp_path: Path) -> None:
    docs = render(EXAMPLES / "small-cpu.yaml", sets=TLS)
    (certificate,) = by_kind(docs, "Certificate").values()
    spec = certificate["spec"]
    assert spec["secretName"] == "scicustom-grpc-tls" and spec["issuerRef"]["name"] == "platform-ca"
    assert set(spec["usages"]) >= {"server auth", "client auth"}
    services = _pods(docs, "grpc")
    for name in services:
        assert {name, f"{name}.scicustom.svc", f"{name}.scicustom.svc.cluster.local"} <= set(spec["dnsNames"])
    for name, pod in services.items():
        container = pod["containers"][0]
        env = _env(pod)
        assert (env["SCICUSTOM_TLS_CERT_FILE"], env["SCICUSTOM_TLS_KEY_FILE"], env["SCICUSTOM_TLS_CLIENT_CA_FILE"]) == (
            "/etc/scicustom/tls/tls.crt", "/etc/scicustom/tls/tls.key", "/etc/scicustom/tls/ca.crt")
        assert env["SCICUSTOM_GRPC_HEALTH_PORT"] == "50052"
        assert _volumes(pod)["grpc-tls"]["secret"]["secretName"] == "scicustom-grpc-tls"
        assert {"name": "health", "containerPort": 50052, "protocol": "TCP"} in container["ports"]
        for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
            assert container[probe]["grpc"]["port"] == 50052, (name, probe)
    for pod in _pods(docs, "worker").values():  # a worker's health port is its only port: unchanged
        assert pod["containers"][0]["livenessProbe"]["grpc"]["port"] == 50051 and "grpc-tls" not in _volumes(pod)
    assert not [p for s in by_kind(docs, "Service").values() for p in s["spec"]["ports"] if "appProtocol" in p]
    # Strictly valid (the Certificate CRD is not among the validator's schemas).
    done = helm_template("-f", str(EXAMPLES / "small-cpu.yaml"), *[a for s in TLS for a in ("--set", s)])
    rendered = tmp_path / "tls.yaml"
    rendered.write_text(done.stdout)
    check = subprocess.run([str(VALIDATOR_PYTHON), str(VALIDATOR), "--k8s-version", "1.35.0",
                            "--ignore-missing-schemas", str(rendered)], capture_output=True, text=True, check=False)
    assert check.returncode == 0, check.stdout + check.stderr


def test_settings_that_cannot_work_are_refused_by_the_schema(tmp_path: Path) -> None:
    for sets, message in ((("tls.certManager.enabled=true",), "at '/tls/certManager/issuerRef/name'"),
                          (("auth.tokensSecret=",), "at '/auth/tokensSecret'")):
        done = helm_template("-f", str(EXAMPLES / "small-cpu.yaml"), *[a for s in sets for a in ("--set", s)])
        assert done.returncode != 0 and message in done.stderr, done.stderr


def test_the_stack_generates_the_tokens_secret_its_services_read(tmp_path: Path, helm_gate) -> None:
    docs = _render_without_upstream(tmp_path)
    secret = by_kind(docs, "Secret")["scicustom-auth-tokens"]
    token = base64.b64decode(secret["data"]["token"]).decode()
    line = base64.b64decode(secret["data"]["tokens"]).decode()
    assert token.startswith("sct_") and len(token) == 47
    assert line == f"dev {hashlib.sha256(token.encode()).hexdigest()}\n"
    assert parse_tokens(line).tenant_of(token) == "dev"  # what the services will read
    for pod in _pods(docs, "grpc").values():
        assert _volumes(pod)["auth-tokens"]["secret"]["secretName"] == "scicustom-auth-tokens"
