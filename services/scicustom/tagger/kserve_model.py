"""The KServe `Model` named `tagger`: Open Inference Protocol v2 over REST and gRPC.

Inputs: one BYTES tensor `text`, shape [batch] or [batch, 1], UTF-8; optionally one FP32 tensor `vector`,
[batch, dimension], the texts' sentence vectors from the platform's embedder (a caller that holds them,
the ingest's tag worker, saves the server encoding them; without it the server encodes the texts when
the tagger version has a sentence-vector head). Outputs, best unit first:
  unit_ids   BYTES [batch, max_units]  unit ids, "" where a text has fewer units
  scores     FP32  [batch, max_units]  their scores, 0 where padded
  num_units  INT32 [batch]             how many of the columns are real
The response's model_version is the tagger version. Readiness is honest: `ready` turns true only
once the ONNX session exists; a request arriving before that waits for the load.
"""

from __future__ import annotations

import asyncio
import threading
import uuid
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from kserve import Model
from kserve.errors import InvalidInput
from kserve.protocol.infer_type import InferInput, InferOutput, InferRequest, InferResponse

from scicustom.bootstrap import Context
from scicustom.core.errors import InvalidInput as PlatformInvalidInput
from scicustom.core.tagger_training.decoding import MAX_UNITS
from scicustom.ports import Tagger

MODEL_NAME = "tagger"
INPUT_NAME = "text"
VECTOR_INPUT = "vector"
OUTPUT_NAMES = ("unit_ids", "scores", "num_units")
DEFAULT_MAX_BATCH = 256


def texts_from_input(tensor: InferInput, max_batch: int) -> list[str]:
    """The texts of the `text` tensor, or kserve InvalidInput naming what is wrong."""
    if tensor.name != INPUT_NAME:
        raise InvalidInput(f"unknown input tensor '{tensor.name}': the tagger takes one BYTES tensor '{INPUT_NAME}'")
    if tensor.datatype != "BYTES":
        raise InvalidInput(f"input '{INPUT_NAME}' must be BYTES, got {tensor.datatype}")
    shape = list(tensor.shape)
    if not (len(shape) == 1 or (len(shape) == 2 and shape[1] == 1)):
        raise InvalidInput(f"input '{INPUT_NAME}' must have shape [batch] or [batch, 1], got {shape}")
    if shape[0] < 1:
        raise InvalidInput(f"input '{INPUT_NAME}' is an empty batch")
    if shape[0] > max_batch:
        raise InvalidInput(f"batch of {shape[0]} texts exceeds the limit of {max_batch}")
    try:
        values = tensor.as_numpy().reshape(-1)
    except Exception as exc:  # a malformed binary payload: say so rather than crash
        raise InvalidInput(f"input '{INPUT_NAME}' could not be decoded: {exc}") from None
    texts = []
    for i, value in enumerate(values):
        if isinstance(value, bytes | bytearray):
            try:
                value = bytes(value).decode("utf-8")
            except UnicodeDecodeError as exc:
                raise InvalidInput(f"{INPUT_NAME}[{i}] is not valid UTF-8 (byte {exc.start})") from None
        if not isinstance(value, str):
            raise InvalidInput(f"{INPUT_NAME}[{i}] is not text")
        if not value.strip():
            raise InvalidInput(f"{INPUT_NAME}[{i}] is empty")
        texts.append(value)
    return texts


def vectors_from_input(tensor: InferInput, batch: int) -> np.ndarray:
    """The `vector` tensor as float32 [batch, dimension], or kserve InvalidInput naming what is wrong."""
    if tensor.datatype != "FP32":
        raise InvalidInput(f"input '{VECTOR_INPUT}' must be FP32, got {tensor.datatype}")
    shape = list(tensor.shape)
    if len(shape) != 2 or shape[0] != batch or shape[1] < 1:
        raise InvalidInput(f"input '{VECTOR_INPUT}' must have shape [{batch}, dimension] (one row per text), "
                           f"got {shape}")
    try:
        values = np.asarray(tensor.as_numpy(), dtype=np.float32).reshape(shape)
    except Exception as exc:  # a malformed payload: say so rather than crash
        raise InvalidInput(f"input '{VECTOR_INPUT}' could not be decoded: {exc}") from None
    if not np.isfinite(values).all():
        raise InvalidInput(f"input '{VECTOR_INPUT}' holds values that are not finite")
    return values


def request_inputs(payload: InferRequest, max_batch: int) -> tuple[list[str], np.ndarray | None]:
    """The texts and, when sent, their vectors; unknown or repeated tensors are refused by name."""
    by_name: dict[str, InferInput] = {}
    for tensor in payload.inputs:
        if tensor.name not in (INPUT_NAME, VECTOR_INPUT):
            raise InvalidInput(f"unknown input tensor '{tensor.name}': the tagger takes a BYTES tensor "
                               f"'{INPUT_NAME}' and optionally an FP32 tensor '{VECTOR_INPUT}'")
        if tensor.name in by_name:
            raise InvalidInput(f"input tensor '{tensor.name}' is sent twice")
        by_name[tensor.name] = tensor
    if INPUT_NAME not in by_name:
        raise InvalidInput(f"expected an input tensor '{INPUT_NAME}'")
    texts = texts_from_input(by_name[INPUT_NAME], max_batch)
    vector = by_name.get(VECTOR_INPUT)
    return texts, (vectors_from_input(vector, len(texts)) if vector is not None else None)


class TaggerModel(Model):
    def __init__(self, artifact_dir: Path, name: str = MODEL_NAME, max_batch: int = DEFAULT_MAX_BATCH,
                 threads: int | None = None) -> None:
        super().__init__(name)
        self.ready = False
        self._artifact_dir = artifact_dir
        self._threads = threads
        self.max_batch = max_batch
        self._lock = threading.Lock()
        self._tagger: Tagger | None = None

    def load(self) -> bool:
        with self._lock:
            if self._tagger is None:
                self._tagger = Context.trained_tagger_at(self._artifact_dir, threads=self._threads)
            self.ready = True
        return self.ready

    @property
    def version(self) -> str:
        return self._tagger.version if self._tagger else ""

    def get_input_types(self) -> list[dict[str, Any]]:
        # The metadata lists `vector` so that a client knows it may send it (TritonTagger checks).
        return [{"name": INPUT_NAME, "datatype": "BYTES", "shape": [-1]},
                {"name": VECTOR_INPUT, "datatype": "FP32", "shape": [-1, -1]}]

    def get_output_types(self) -> list[dict[str, Any]]:
        return [{"name": "unit_ids", "datatype": "BYTES", "shape": [-1, MAX_UNITS]},
                {"name": "scores", "datatype": "FP32", "shape": [-1, MAX_UNITS]},
                {"name": "num_units", "datatype": "INT32", "shape": [-1]}]

    async def predict(self, payload: InferRequest, headers: dict[str, str] | None = None,
                      response_headers: dict[str, str] | None = None) -> InferResponse:
        if not isinstance(payload, InferRequest):
            raise InvalidInput("the tagger speaks the v2 inference protocol only")
        texts, vectors = request_inputs(payload, self.max_batch)
        for requested in payload.request_outputs or []:
            if requested.name not in OUTPUT_NAMES:
                raise InvalidInput(f"unknown output '{requested.name}'; outputs are {', '.join(OUTPUT_NAMES)}")
        if self._tagger is None:
            self.load()
        tagger = self._tagger
        assert tagger is not None
        try:
            tags = await asyncio.get_running_loop().run_in_executor(None, tagger.tag, texts, vectors)
        except PlatformInvalidInput as exc:  # e.g. vectors of another dimension than the head reads
            raise InvalidInput(str(exc)) from None
        return self._response(payload, tags, tagger.version)

    def _response(self, payload: InferRequest, tags: Sequence[Sequence[Any]], version: str) -> InferResponse:
        k = MAX_UNITS
        ids = np.full((len(tags), k), b"", dtype=object)
        scores = np.zeros((len(tags), k), dtype=np.float32)
        counts = np.zeros(len(tags), dtype=np.int32)
        for r, row in enumerate(tags):
            counts[r] = len(row)
            for c, unit in enumerate(row[:k]):
                ids[r, c] = unit.unit_id.encode()
                scores[r, c] = unit.score
        # numpy data: to_grpc turns it into raw contents by itself (tritonclient cannot read BYTES
        # `contents` under numpy 2; use_binary_outputs must stay off there, kserve tests an array's
        # truth value on that path); REST follows each requested output's binary_data flag.
        outputs = [InferOutput("unit_ids", list(ids.shape), "BYTES", data=ids),
                   InferOutput("scores", list(scores.shape), "FP32", data=scores),
                   InferOutput("num_units", list(counts.shape), "INT32", data=counts)]
        binary = bool(not payload.from_grpc and payload.parameters and payload.parameters.get("binary_data_output"))
        return InferResponse(response_id=payload.id or str(uuid.uuid4()), model_name=self.name,
                             model_version=version, infer_outputs=outputs, use_binary_outputs=binary,
                             requested_outputs=payload.request_outputs or None)
