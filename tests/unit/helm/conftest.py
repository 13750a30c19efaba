"""Fixtures for the Helm chart tests: the pinned helm binary, renders of the chart, the validator."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[3]
CHART = ROOT / "charts" / "scicustom"
EXAMPLES = ROOT / "k8s" / "examples"
HELM = ROOT / ".tools" / "bin" / "helm"
VALIDATOR_PYTHON = ROOT / ".tools" / "validate-venv" / "bin" / "python"
VALIDATOR = ROOT.parent / "shared" / "crds" / "validate_manifests.py"
RELEASE = NAMESPACE = "scicustom"


@pytest.fixture(scope="session")
def helm_gate() -> subprocess.CompletedProcess[str]:
    """`scripts/helm_check.sh` once per session: it installs helm and the validator's venv too."""
    return subprocess.run([str(ROOT / "scripts" / "helm_check.sh")], cwd=ROOT, capture_output=True, text=True,
                          check=False)


def helm_template(*args: str, chart: Path = CHART) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(HELM), "template", RELEASE, str(chart), "--namespace", NAMESPACE,
                           "--kube-version", "1.35.0", *args], capture_output=True, text=True, check=False)


def documents(text: str) -> list[dict[str, Any]]:
    return [d for d in yaml.safe_load_all(text) if d]


@pytest.fixture(scope="session")
def render(helm_gate: subprocess.CompletedProcess[str]) -> Callable[..., list[dict[str, Any]]]:
    """Render the chart with value files / --set pairs; fail the test if helm refuses."""
    def run(*values: Path, sets: tuple[str, ...] = ()) -> list[dict[str, Any]]:
        args = [a for v in values for a in ("-f", str(v))] + [a for s in sets for a in ("--set", s)]
        done = helm_template(*args)
        assert done.returncode == 0, done.stderr
        return documents(done.stdout)

    return run


@pytest.fixture(scope="session")
def gpu_docs(render: Callable[..., list[dict[str, Any]]]) -> list[dict[str, Any]]:
    return render(EXAMPLES / "gpu.yaml")


@pytest.fixture(scope="session")
def small_docs(render: Callable[..., list[dict[str, Any]]]) -> list[dict[str, Any]]:
    return render(EXAMPLES / "small-cpu.yaml")


def by_kind(docs: list[dict[str, Any]], kind: str) -> dict[str, dict[str, Any]]:
    return {d["metadata"]["name"]: d for d in docs if d["kind"] == kind}
