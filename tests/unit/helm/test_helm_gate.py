"""`make helm-lint` (scripts/helm_check.sh): strict lint, validation of the example renders with
../shared/crds/validate_manifests.py, and the golden renders."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from tests.unit.helm.conftest import ROOT


def test_gate_passes_with_zero_validation_errors(helm_gate: subprocess.CompletedProcess[str]) -> None:
    assert helm_gate.returncode == 0, helm_gate.stdout + helm_gate.stderr
    out = helm_gate.stdout
    assert "helm lint --strict: ok (default values, small-cpu gpu)" in out
    assert out.count(" 0 error(s), Kubernetes 1.35.0 schemas") == 2
    # 14 of them: the workers' headless metrics Services; 2 the reaper's CronJob and NetworkPolicy.
    assert "106 document(s), 0 error(s)" in out  # small-cpu
    assert "131 document(s), 0 error(s)" in out  # gpu
    assert "golden small-cpu: unchanged" in out and "golden gpu: unchanged" in out


def _copy_of_repo(tmp_path: Path) -> Path:
    """The files the gate reads, beside a ../shared link, so a test can break a golden."""
    repo = tmp_path / "repo"
    for part in ("scripts/helm_check.sh", "scripts/install_helm.sh"):
        (repo / part).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / part, repo / part)
    shutil.copytree(ROOT / "charts" / "scicustom", repo / "charts" / "scicustom")
    shutil.copytree(ROOT / "k8s" / "examples", repo / "k8s" / "examples")
    (repo / ".tools").symlink_to(ROOT / ".tools")
    (tmp_path / "shared").symlink_to(ROOT.parent / "shared")
    return repo


def _gate(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(repo / "scripts" / "helm_check.sh"), *args], cwd=repo, capture_output=True,
                          text=True, check=False)


def test_drift_from_the_golden_fails_and_update_golden_repairs_it(
        tmp_path: Path, helm_gate: subprocess.CompletedProcess[str]) -> None:
    repo = _copy_of_repo(tmp_path)
    golden = repo / "charts" / "scicustom" / "tests" / "golden" / "gpu.yaml"
    original = golden.read_text()
    golden.write_text(original.replace("maxReplicaCount: 12", "maxReplicaCount: 13", 1))

    drifted = _gate(repo)
    assert drifted.returncode == 1
    assert "the render of gpu drifted" in drifted.stderr
    assert "-  maxReplicaCount: 13" in drifted.stderr and "+  maxReplicaCount: 12" in drifted.stderr

    assert _gate(repo, "--update-golden").returncode == 0
    assert golden.read_text() == original
    assert _gate(repo).returncode == 0


def test_a_template_change_is_drift(tmp_path: Path, helm_gate: subprocess.CompletedProcess[str]) -> None:
    repo = _copy_of_repo(tmp_path)
    template = repo / "charts" / "scicustom" / "templates" / "deployments.yaml"
    template.write_text(template.read_text().replace("revisionHistoryLimit: 5", "revisionHistoryLimit: 4"))
    done = _gate(repo)
    assert done.returncode == 1
    assert "drifted from charts/scicustom/tests/golden/small-cpu.yaml" in done.stderr


def test_unknown_option_is_refused(tmp_path: Path) -> None:
    done = subprocess.run([str(ROOT / "scripts" / "helm_check.sh"), "--update"], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 2
    assert "usage:" in done.stderr


def test_an_invalid_manifest_fails_the_gate(tmp_path: Path, helm_gate: subprocess.CompletedProcess[str]) -> None:
    repo = _copy_of_repo(tmp_path)
    template = repo / "charts" / "scicustom" / "templates" / "services.yaml"
    template.write_text(template.read_text().replace("appProtocol:", "appProtocl:"))
    done = _gate(repo)
    assert done.returncode == 1
    assert re.search(r"^small-cpu\.yaml:\d+: doc \d+ Service/scicustom-builds: \.spec\.ports\[0\]\.appProtocl: "
                     r'unknown field "appProtocl" \(did you mean "appProtocol"\?\)$', done.stdout, re.MULTILINE)
    assert "10 error(s)" in done.stdout + done.stderr
