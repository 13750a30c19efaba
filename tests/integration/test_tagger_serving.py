"""The trained tagger behind the KServe ModelServer: real tritonclient calls over gRPC and HTTP.

The server runs in its own process (kserve and tritonclient.grpc cannot share one: both register
the `inference` protobuf package), bound to loopback, serving a tiny model trained here with a
sentence-vector head (384-d, as MiniLM's): texts alone are encoded by the server's MiniLM, texts with
vectors are tagged with those.
"""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
import tritonclient.grpc as grpcclient
import tritonclient.http as httpclient
from tritonclient.utils import InferenceServerException

from scicustom.adapters.minilm_embedder import MiniLMEmbedder
from scicustom.adapters.onnx_tagger import OnnxTagger
from scicustom.adapters.triton_tagger import TritonTagger
from scicustom.core.errors import InvalidInput, RemoteTaggerError
from scicustom.devstack.real_servers import ServerProcess, free_port, start_process
from tests.unit.tagger.tiny_world import train_tiny

MAX_BATCH = 16
CLI = "from scicustom.cli import run; run()"
TEXTS = [
    "What is the rate constant of a first-order reaction with a half-life of 10 s?",
    "Which protein shell surrounds the genome of a virus?",
    "The mitral valve separates which chambers of the heart?",
    "How does refraction change the focal length of a lens?",
    "Who wrote the Critique of Pure Reason?",
    "Compute the integral of a matrix exponential.",
    "Ünïcödé text about the myocardium and the atrium — with a dash",
] * 4


@dataclass
class TaggerServer:
    http: str
    grpc: str
    artifact_dir: Path
    process: ServerProcess


def _http_ready(port: int) -> bool:
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/v2/models/tagger/ready", timeout=1) as response:
        return bool(response.status == 200)


@pytest.fixture(scope="module")
def tagger_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TaggerServer]:
    home = tmp_path_factory.mktemp("kserve_home")
    result = train_tiny(home / "models" / "tagger", head_dimensions=384)
    assert result.artifact.head is not None
    http_port = free_port()
    grpc_port = free_port({http_port})
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home), "SCICUSTOM_HOME": str(home), "HF_HUB_OFFLINE": "1",
           "TRANSFORMERS_OFFLINE": "1", "LANG": "C.UTF-8"}
    argv = [sys.executable, "-c", CLI, "serve", "tagger", "--host", "127.0.0.1", "--http-port", str(http_port),
            "--grpc-port", str(grpc_port), "--max-batch", str(MAX_BATCH), "--threads", "1"]
    process = start_process("kserve-tagger", argv, home / "logs", lambda _: _http_ready(http_port), env)
    yield TaggerServer(f"127.0.0.1:{http_port}", f"127.0.0.1:{grpc_port}", result.artifact.directory, process)
    process.stop()


def _assert_same(got: list, expected: list) -> None:  # type: ignore[type-arg]
    assert [[s.unit_id for s in row] for row in got] == [[s.unit_id for s in row] for row in expected]
    # Same units; scores equal up to float32 rounding differences between the two runtimes.
    for got_row, expected_row in zip(got, expected, strict=True):
        assert [s.score for s in got_row] == pytest.approx([s.score for s in expected_row], abs=1e-5)


def test_embedded_and_remote_adapters_return_identical_units(tagger_server: TaggerServer) -> None:
    embedded = OnnxTagger(tagger_server.artifact_dir, embedder=MiniLMEmbedder())
    expected = embedded.tag(TEXTS)
    for protocol, url in (("grpc", tagger_server.grpc), ("http", tagger_server.http)):
        remote = TritonTagger(url, protocol=protocol, batch_size=6, timeout_s=30.0)  # type: ignore[arg-type]
        _assert_same(remote.tag(TEXTS), expected)
        assert remote.version == embedded.version
        assert remote.is_ready()
        remote.close()


def test_vectors_the_caller_holds_are_sent_and_used(tagger_server: TaggerServer) -> None:
    vectors = np.random.default_rng(0).normal(size=(len(TEXTS), 384)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    expected = OnnxTagger(tagger_server.artifact_dir).tag(TEXTS, vectors)
    assert expected != OnnxTagger(tagger_server.artifact_dir, embedder=MiniLMEmbedder()).tag(TEXTS)
    for protocol, url in (("grpc", tagger_server.grpc), ("http", tagger_server.http)):
        remote = TritonTagger(url, protocol=protocol, batch_size=6, timeout_s=30.0)  # type: ignore[arg-type]
        assert remote.accepts_vectors()
        _assert_same(remote.tag(TEXTS, vectors), expected)
        with pytest.raises(InvalidInput, match=r"expected shape \[6, 384\]"):
            remote.tag(TEXTS, vectors[:, :100])
        remote.close()


def test_health_and_metadata(tagger_server: TaggerServer) -> None:
    client = grpcclient.InferenceServerClient(tagger_server.grpc)
    assert client.is_server_live() and client.is_model_ready("tagger")
    metadata = client.get_model_metadata("tagger")
    assert [(t.name, t.datatype) for t in metadata.inputs] == [("text", "BYTES"), ("vector", "FP32")]
    assert [t.name for t in metadata.outputs] == ["unit_ids", "scores", "num_units"]
    http = httpclient.InferenceServerClient(tagger_server.http)
    assert http.is_server_ready() and http.is_model_ready("tagger")
    assert not http.is_model_ready("no_such_model")


def _grpc_call(url: str, name: str, values: list[bytes], shape: list[int] | None = None) -> None:
    client = grpcclient.InferenceServerClient(url)
    tensor = grpcclient.InferInput(name, shape or [len(values)], "BYTES")
    tensor.set_data_from_numpy(np.array(values, dtype=object).reshape(shape or [len(values)]))
    client.infer("tagger", [tensor], client_timeout=30.0)


def _http_call(url: str, name: str, values: list[bytes]) -> None:
    client = httpclient.InferenceServerClient(url, network_timeout=30.0)
    tensor = httpclient.InferInput(name, [len(values)], "BYTES")
    tensor.set_data_from_numpy(np.array(values, dtype=object), binary_data=True)
    client.infer("tagger", [tensor], outputs=[httpclient.InferRequestedOutput("unit_ids", binary_data=True)])


BAD_INPUTS = [
    ("text", [b"fine", b"   "], "text[1] is empty"),
    ("text", [b"ok", b"\xff\xfe broken"], "is not valid UTF-8"),
    ("text", [b"q"] * (MAX_BATCH + 1), f"batch of {MAX_BATCH + 1} texts exceeds the limit of {MAX_BATCH}"),
    ("question", [b"What is a lens?"], "unknown input tensor 'question'"),
]


@pytest.mark.parametrize(("name", "values", "message"), BAD_INPUTS)
def test_bad_input_gets_a_protocol_error_naming_the_problem(tagger_server: TaggerServer, name: str,
                                                            values: list[bytes], message: str) -> None:
    with pytest.raises(InferenceServerException) as grpc_error:
        _grpc_call(tagger_server.grpc, name, values)
    assert "INVALID_ARGUMENT" in str(grpc_error.value.status()) and message in grpc_error.value.message()
    with pytest.raises(InferenceServerException) as http_error:
        _http_call(tagger_server.http, name, values)
    assert str(http_error.value.status()) == "400" and message in str(http_error.value.message())


def test_wrong_datatype_and_unknown_output_are_refused(tagger_server: TaggerServer) -> None:
    client = grpcclient.InferenceServerClient(tagger_server.grpc)
    tensor = grpcclient.InferInput("text", [1], "INT32")
    tensor.set_data_from_numpy(np.array([3], dtype=np.int32))
    with pytest.raises(InferenceServerException, match="must be BYTES"):
        client.infer("tagger", [tensor])
    tensor = grpcclient.InferInput("text", [1], "BYTES")
    tensor.set_data_from_numpy(np.array([b"lens"], dtype=object))
    with pytest.raises(InferenceServerException, match="unknown output 'labels'"):
        client.infer("tagger", [tensor], outputs=[grpcclient.InferRequestedOutput("labels")])


def test_bad_vectors_are_refused_by_name(tagger_server: TaggerServer) -> None:
    client = grpcclient.InferenceServerClient(tagger_server.grpc)
    text = grpcclient.InferInput("text", [2], "BYTES")
    text.set_data_from_numpy(np.array([b"lens", b"virus"], dtype=object))
    cases = [(np.zeros((3, 384), dtype=np.float32), "FP32", "must have shape [2, dimension]"),
             (np.zeros((2, 384), dtype=np.int32), "INT32", "must be FP32"),
             (np.full((2, 384), np.inf, dtype=np.float32), "FP32", "not finite")]
    for values, datatype, message in cases:
        vector = grpcclient.InferInput("vector", list(values.shape), datatype)
        vector.set_data_from_numpy(values)
        with pytest.raises(InferenceServerException) as error:
            client.infer("tagger", [text, vector], client_timeout=30.0)
        assert "INVALID_ARGUMENT" in str(error.value.status()) and message in error.value.message()


def test_remote_adapter_maps_protocol_errors_and_retries(tagger_server: TaggerServer) -> None:
    too_big = TritonTagger(tagger_server.grpc, batch_size=MAX_BATCH + 4)
    with pytest.raises(InvalidInput, match="exceeds the limit"):
        too_big.tag(TEXTS)
    nobody = TritonTagger(f"127.0.0.1:{free_port()}", protocol="grpc", timeout_s=2.0, retries=1, backoff_s=0.01)
    with pytest.raises(RemoteTaggerError):
        nobody.tag(["lens"])


def test_model_is_not_ready_before_it_is_loaded(tagger_server: TaggerServer) -> None:
    # In a process of its own: kserve may not be imported next to tritonclient.grpc.
    script = (
        "import sys; from pathlib import Path\n"
        "from scicustom.tagger.kserve_model import TaggerModel\n"
        "m = TaggerModel(Path(sys.argv[1]))\n"
        "before = m.ready\n"
        "m.load()\n"
        "print(before, m.ready, m.version)\n"
    )
    out = subprocess.run([sys.executable, "-c", script, str(tagger_server.artifact_dir)], capture_output=True,
                         text=True, check=True, env={"PATH": "/usr/bin:/bin", "HF_HUB_OFFLINE": "1"})
    before, after, version = out.stdout.split()
    manifest = json.loads((tagger_server.artifact_dir / "manifest.json").read_text())
    assert (before, after, version) == ("False", "True", manifest["version"])
