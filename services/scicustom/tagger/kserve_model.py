"""The KServe `Model` named `tagger`: Open Inference Protocol v2 over REST and gRPC.

Input: one BYTES tensor `text`, shape [batch] or [batch, 1], UTF-8. Outputs, best unit first:
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
from scicustom.core.tagger_training.decoding import MAX_UNITS
from scicustom.ports import Tagger

MODEL_NAME = "tagger"
INPUT_NAME = "text"
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
        return [{"name": INPUT_NAME, "datatype": "BYTES", "shape": [-1]}]

    def get_output_types(self) -> list[dict[str, Any]]:
        return [{"name": "unit_ids", "datatype": "BYTES", "shape": [-1, MAX_UNITS]},
                {"name": "scores", "datatype": "FP32", "shape": [-1, MAX_UNITS]},
                {"name": "num_units", "datatype": "INT32", "shape": [-1]}]

    async def predict(self, payload: InferRequest, headers: dict[str, str] | None = None,
                      response_headers: dict[str, str] | None = None) -> InferResponse:
        if not isinstance(payload, InferRequest):
            raise InvalidInput("the tagger speaks the v2 inference protocol only")
        if len(payload.inputs) != 1:
            raise InvalidInput(f"expected exactly one input tensor '{INPUT_NAME}', got {len(payload.inputs)}")
        texts = texts_from_input(payload.inputs[0], self.max_batch)
        for requested in payload.request_outputs or []:
            if requested.name not in OUTPUT_NAMES:
                raise InvalidInput(f"unknown output '{requested.name}'; outputs are {', '.join(OUTPUT_NAMES)}")
        if self._tagger is None:
            self.load()
        tagger = self._tagger
        assert tagger is not None
        tags = await asyncio.get_running_loop().run_in_executor(None, tagger.tag, texts)
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
