"""Triton Python-backend model `tagger_tokenizer`: TEXT (BYTES) -> input_ids, attention_mask (INT64).

Ids are padded to a fixed width so Triton's dynamic batcher can stack requests for the ONNX model.
For a tagger version with a sentence-vector head, the config's parameters `sentence_tokenizer` (a file
beside this one) and `sentence_tokens` (MiniLM's max_seq_length) make it also emit MiniLM's inputs for
the sentence encoder: sentence_ids, sentence_mask and sentence_type_ids (zeros) at that width. When the
sentence tokenizer is the tagger's own file at the same width, the tagger's ids are reused as they are.
Needs the `tokenizers` package in the Python backend's environment; `tokenizer.json` lies beside
this file. The pure functions `encode_texts` and `sentence_inputs` are what the tests check against the
embedded path.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

OWN_TOKENIZER = "tokenizer.json"


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


def sentence_inputs(tokenizer: Any, texts: list[str], width: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """MiniLM's (input_ids, attention_mask, token_type_ids): one segment, so the type ids are zeros."""
    ids, mask = encode_texts(tokenizer, texts, width)
    return ids, mask, np.zeros_like(ids)


class TritonPythonModel:
    def initialize(self, args: dict[str, Any]) -> None:
        parameters = json.loads(args["model_config"])["parameters"]
        here = Path(__file__).parent
        self.width = int(parameters["max_tokens"]["string_value"])
        self.tokenizer = load_tokenizer(here / OWN_TOKENIZER, self.width)
        self.sentence: Any = None  # the sentence encoder's tokenizer; None: no head, no sentence inputs
        self.reuse = False
        if "sentence_tokens" in parameters:
            file = parameters["sentence_tokenizer"]["string_value"]
            self.sentence_width = int(parameters["sentence_tokens"]["string_value"])
            # The same vocabulary at the same width gives the same ids: tokenize once.
            self.reuse = file == OWN_TOKENIZER and self.sentence_width == self.width
            self.sentence = self.tokenizer if self.reuse else load_tokenizer(here / file, self.sentence_width)

    def outputs(self, texts: list[str]) -> list[Any]:
        import triton_python_backend_utils as pb_utils

        ids, mask = encode_texts(self.tokenizer, texts, self.width)
        tensors = [pb_utils.Tensor("input_ids", ids), pb_utils.Tensor("attention_mask", mask)]
        if self.sentence is not None:
            s_ids, s_mask, s_types = ((ids, mask, np.zeros_like(ids)) if self.reuse
                                      else sentence_inputs(self.sentence, texts, self.sentence_width))
            tensors += [pb_utils.Tensor("sentence_ids", s_ids), pb_utils.Tensor("sentence_mask", s_mask),
                        pb_utils.Tensor("sentence_type_ids", s_types)]
        return tensors

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
            responses.append(pb_utils.InferenceResponse(output_tensors=self.outputs(texts)))
        return responses
