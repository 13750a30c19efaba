"""The Tagger port, remote: the `tagger` model behind KServe or Triton, via tritonclient (gRPC or HTTP).

Texts go in batches of at most `batch_size`; each call has a deadline (`timeout_s`) and transient
failures (unavailable, deadline exceeded, 5xx, connection errors) are retried with exponential
backoff. A protocol error about the input (INVALID_ARGUMENT / HTTP 400) is not retried: it becomes
InvalidInput with the server's message. The version is the server's model_version. Vectors the caller
holds go along as FP32 tensor `vector` when the model's metadata declares that input (the KServe model
does; the Triton ensemble encodes on the GPU itself).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import Any, Literal

import numpy as np
from tritonclient.utils import InferenceServerException

from scicustom.adapters.onnx_tagger import validate_texts
from scicustom.core.errors import InvalidInput, RemoteTaggerError
from scicustom.ports import UnitScore
from scicustom.telemetry.metrics import PlatformMetrics, process_metrics

Protocol = Literal["grpc", "http"]
OUTPUTS = ("unit_ids", "scores", "num_units")
VECTOR_INPUT = "vector"
_TRANSIENT = ("UNAVAILABLE", "DEADLINE_EXCEEDED", "RESOURCE_EXHAUSTED", "ABORTED", "500", "502", "503", "504")
_BAD_INPUT = ("INVALID_ARGUMENT", "400")


class TritonTagger:
    def __init__(self, url: str, protocol: Protocol = "grpc", model_name: str = "tagger", batch_size: int = 64,
                 timeout_s: float = 10.0, retries: int = 3, backoff_s: float = 0.2,
                 metrics: PlatformMetrics | None = None) -> None:
        self._metrics = metrics or process_metrics()
        self.url = url
        self.protocol = protocol
        self.model_name = model_name
        self.batch_size = batch_size
        self.timeout_s = timeout_s
        self.retries = retries
        self.backoff_s = backoff_s
        self._version = ""
        self._accepts_vectors: bool | None = None  # from the model's metadata, read once
        if protocol == "grpc":
            import tritonclient.grpc as client_module
            self._module: Any = client_module
            self._client: Any = client_module.InferenceServerClient(url)
        else:
            import tritonclient.http as client_module
            self._module = client_module
            self._client = client_module.InferenceServerClient(url, connection_timeout=timeout_s,
                                                               network_timeout=timeout_s)

    @property
    def version(self) -> str:
        if not self._version:
            self._infer(["version probe"])
        return self._version

    def is_ready(self) -> bool:
        try:
            return bool(self._client.is_model_ready(self.model_name))
        except (InferenceServerException, OSError):
            return False

    def close(self) -> None:
        self._client.close()

    def tag(self, texts: Sequence[str], vectors: np.ndarray | None = None) -> list[list[UnitScore]]:
        validate_texts(texts)
        if vectors is not None:
            vectors = np.asarray(vectors, dtype=np.float32)
            if vectors.ndim != 2 or len(vectors) != len(texts):
                raise InvalidInput("vectors", f"expected one row per text ({len(texts)}), "
                                              f"got shape {list(vectors.shape)}")
            if not self.accepts_vectors():
                vectors = None
        # Batches of texts of similar length (answers in the caller's order): the server pads each batch
        # to its longest text, and a text-only batch of a version with a head is encoded by MiniLM too.
        order = np.argsort([len(t) for t in texts], kind="stable")
        out: list[list[UnitScore]] = [[] for _ in texts]
        for start in range(0, len(texts), self.batch_size):
            chosen = order[start : start + self.batch_size]
            rows = vectors[chosen] if vectors is not None else None
            for index, tags in zip(chosen, self._infer([texts[i] for i in chosen], rows), strict=True):
                out[index] = tags
        return out

    def accepts_vectors(self) -> bool:
        """Whether the served model declares the `vector` input (False while its metadata cannot be read)."""
        if self._accepts_vectors is None:
            try:
                metadata = self._client.get_model_metadata(self.model_name)
            except (InferenceServerException, OSError):
                return False
            inputs = metadata.inputs if self.protocol == "grpc" else metadata.get("inputs", [])
            self._accepts_vectors = any((i.name if self.protocol == "grpc" else i.get("name")) == VECTOR_INPUT
                                        for i in inputs)
        return self._accepts_vectors

    def _request(self, texts: list[str], vectors: np.ndarray | None) -> tuple[list[Any], list[Any]]:
        # [batch, 1]: what both the KServe model and the Triton ensemble (dims [1]) accept.
        data = np.array([t.encode("utf-8") for t in texts], dtype=object).reshape(-1, 1)
        tensors = [(self._module.InferInput("text", [len(texts), 1], "BYTES"), data)]
        if vectors is not None:
            tensors.append((self._module.InferInput(VECTOR_INPUT, list(vectors.shape), "FP32"), vectors))
        binary = self.protocol == "http"
        for tensor, values in tensors:
            if binary:
                tensor.set_data_from_numpy(values, binary_data=True)
            else:
                tensor.set_data_from_numpy(values)
        outputs = [self._module.InferRequestedOutput(n, binary_data=True) if binary
                   else self._module.InferRequestedOutput(n) for n in OUTPUTS]
        return [t for t, _ in tensors], outputs

    def _call(self, texts: list[str], vectors: np.ndarray | None) -> Any:
        inputs, outputs = self._request(texts, vectors)
        if self.protocol == "grpc":
            return self._client.infer(self.model_name, inputs, outputs=outputs, client_timeout=self.timeout_s)
        return self._client.infer(self.model_name, inputs, outputs=outputs)

    def _infer(self, texts: list[str], vectors: np.ndarray | None = None) -> list[list[UnitScore]]:
        """One batch; its time (retries included) goes to scicustom_tagger_batch_seconds{backend="oip_<protocol>"}."""
        started = time.perf_counter()
        delay = self.backoff_s
        for attempt in range(self.retries + 1):
            try:
                result = self._call(texts, vectors)
                break
            except InferenceServerException as exc:
                status = str(exc.status() or "")
                if any(code in status for code in _BAD_INPUT):
                    raise InvalidInput("texts", exc.message() or str(exc)) from None
                if attempt == self.retries or not any(code in status for code in _TRANSIENT):
                    raise RemoteTaggerError(f"{self.protocol}://{self.url}: {exc}") from exc
            except OSError as exc:  # connection refused or reset before the server answered
                if attempt == self.retries:
                    raise RemoteTaggerError(f"{self.protocol}://{self.url}: {exc}") from exc
            time.sleep(delay)
            delay *= 2
        response = result.get_response()
        version = response.model_version if self.protocol == "grpc" else response.get("model_version", "")
        self._version = str(version or self._version)
        ids = result.as_numpy("unit_ids")
        scores = result.as_numpy("scores")
        counts = result.as_numpy("num_units")
        m, backend = self._metrics, f"oip_{self.protocol}"
        m.observe(m.tagger_batch, time.perf_counter() - started, backend)
        m.tagger_texts.labels(backend).inc(len(texts))
        return [[UnitScore(_text(ids[r, c]), round(float(scores[r, c]), 6)) for c in range(int(counts[r]))]
                for r in range(len(texts))]


def _text(value: object) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)
