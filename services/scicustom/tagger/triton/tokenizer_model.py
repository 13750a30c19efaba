"""Triton Python-backend model `tagger_tokenizer`: TEXT (BYTES) -> input_ids, attention_mask (INT64).

Ids are padded to a fixed width so Triton's dynamic batcher can stack requests for the ONNX model.
Needs the `tokenizers` package in the Python backend's environment; `tokenizer.json` lies beside
this file. The pure function `encode_texts` is what the tests check against the embedded path.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np


def load_tokenizer(path: Path, width: int) -> Any:
    from tokenizers import Tokenizer

    tokenizer = Tokenizer.from_file(str(path))
    tokenizer.enable_truncation(width)
    # The packaged tokenizer.json pads to a fixed length of its own; padding is done here instead.
    tokenizer.no_padding()
    return tokenizer


def encode_texts(tokenizer: Any, texts: list[str], width: int) -> tuple[np.ndarray, np.ndarray]:
    ids = np.zeros((len(texts), width), dtype=np.int64)
    mask = np.zeros((len(texts), width), dtype=np.int64)
    for row, encoding in enumerate(tokenizer.encode_batch(texts)):
        n = min(len(encoding.ids), width)
        ids[row, :n] = encoding.ids[:n]
        mask[row, :n] = 1
    return ids, mask


class TritonPythonModel:
    def initialize(self, args: dict[str, Any]) -> None:
        config = json.loads(args["model_config"])
        self.width = int(config["parameters"]["max_tokens"]["string_value"])
        self.tokenizer = load_tokenizer(Path(__file__).parent / "tokenizer.json", self.width)

    def execute(self, requests: list[Any]) -> list[Any]:
        import triton_python_backend_utils as pb_utils

        responses = []
        for request in requests:
            raw = pb_utils.get_input_tensor_by_name(request, "TEXT").as_numpy().reshape(-1)
            try:
                texts = [value.decode("utf-8") for value in raw]
            except UnicodeDecodeError as exc:
                responses.append(pb_utils.InferenceResponse(
                    error=pb_utils.TritonError(f"text is not valid UTF-8 (byte {exc.start})")))
                continue
            if any(not t.strip() for t in texts):
                responses.append(pb_utils.InferenceResponse(error=pb_utils.TritonError("text is empty")))
                continue
            ids, mask = encode_texts(self.tokenizer, texts, self.width)
            responses.append(pb_utils.InferenceResponse(output_tensors=[
                pb_utils.Tensor("input_ids", ids), pb_utils.Tensor("attention_mask", mask)]))
        return responses
