"""Triton Python-backend model `tagger_postprocess`: per-unit probabilities -> the best units.

Applies the calibrated per-unit thresholds and the at-most-8 rule exactly as the embedded tagger
(scicustom.core.tagger_training.decoding), from `decoding.json` beside this file. A tagger version with a
sentence-vector head also gets MiniLM's last hidden state and the sentence mask: the rows are mean-pooled
over the mask and L2-normalised (as the platform's MiniLM embedder does), the head's softmax is blended
into the probabilities (as VectorHead.blended does), and the thresholds, calibrated on that blend, apply.
Runs inside Triton with numpy only: nothing here imports scicustom.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np


def select(scores: np.ndarray, thresholds: np.ndarray, non_scientific: int | None, max_units: int) -> list[list[int]]:
    rows = []
    for row in scores:
        order = sorted(range(len(row)), key=lambda c: (-row[c], c))[: max_units + 1]
        best = order[0]
        if best == non_scientific:
            rows.append([best])
            continue
        kept = [c for c in order if c != non_scientific and row[c] >= thresholds[c]][:max_units]
        rows.append(kept or [best])
    return rows


def outputs_for(scores: np.ndarray, unit_ids: list[str], thresholds: np.ndarray, non_scientific: int | None,
                max_units: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    chosen = select(scores, thresholds, non_scientific, max_units)
    ids = np.full((len(chosen), max_units), b"", dtype=object)
    values = np.zeros((len(chosen), max_units), dtype=np.float32)
    counts = np.zeros((len(chosen), 1), dtype=np.int32)
    for r, cols in enumerate(chosen):
        counts[r, 0] = len(cols)
        for c, col in enumerate(cols):
            ids[r, c] = unit_ids[col].encode()
            values[r, c] = round(float(scores[r, col]), 6)
    return ids, values, counts


def sentence_vectors(hidden: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """[batch, tokens, dim] x [batch, tokens] -> [batch, dim]: the same arithmetic as the MiniLM embedder
    (float32), so padding to the ensemble's fixed width changes nothing (padded tokens weigh 0)."""
    weights = mask[:, :, None].astype(np.float32)
    pooled = (hidden.astype(np.float32, copy=False) * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
    vectors: np.ndarray = pooled / np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
    return vectors


@dataclass(frozen=True)
class Head:
    """The arrays of the version's VectorHead (its vector_head.npz), without importing scicustom."""

    weights: np.ndarray  # [dimension, classes] float32
    bias: np.ndarray     # [classes] float32
    columns: np.ndarray  # [classes] int: the unit column of each class
    units: int
    blend: float

    @staticmethod
    def load(path: Path) -> Head:
        with np.load(path, allow_pickle=False) as f:
            return Head(f["weights"].astype(np.float32), f["bias"].astype(np.float32),
                        f["columns"].astype(np.int64), int(f["units"]), float(f["blend"]))

    def blended(self, network: np.ndarray, vectors: np.ndarray) -> np.ndarray:
        # Step for step VectorHead.scores/blended: the thresholds were calibrated on exactly this.
        logits = vectors.astype(np.float32) @ self.weights + self.bias
        logits -= logits.max(axis=1, keepdims=True)
        probabilities = np.exp(logits)
        probabilities /= probabilities.sum(axis=1, keepdims=True)
        head = np.zeros((len(vectors), self.units), dtype=np.float32)
        head[:, self.columns] = probabilities
        scores: np.ndarray = ((network + self.blend * head) / (1.0 + self.blend)).astype(np.float32)
        return scores


def served_scores(probabilities: np.ndarray, head: Head | None, hidden: np.ndarray | None = None,
                  mask: np.ndarray | None = None) -> np.ndarray:
    """The scores the thresholds apply to: the network's alone, or blended with the head's."""
    if head is None:
        return probabilities
    if hidden is None or mask is None:
        raise ValueError("this tagger version has a sentence-vector head: it needs the hidden state and mask")
    return head.blended(probabilities, sentence_vectors(hidden, mask))


class TritonPythonModel:
    def initialize(self, args: dict[str, Any]) -> None:
        here = Path(__file__).parent
        spec = json.loads((here / "decoding.json").read_text(encoding="utf-8"))
        self.unit_ids = list(spec["unit_ids"])
        self.thresholds = np.asarray(spec["thresholds"], dtype=np.float32)
        self.non_scientific = spec["non_scientific_index"]
        self.max_units = int(spec["max_units"])
        head_file = spec.get("vector_head")  # absent for versions without a head
        self.head = Head.load(here / head_file) if head_file else None

    def execute(self, requests: list[Any]) -> list[Any]:
        import triton_python_backend_utils as pb_utils

        def tensor(request: Any, name: str) -> np.ndarray:
            array: np.ndarray = pb_utils.get_input_tensor_by_name(request, name).as_numpy()
            return array

        responses = []
        for request in requests:
            probabilities = tensor(request, "probabilities")
            if self.head is None:
                scores = served_scores(probabilities, None)
            else:
                scores = served_scores(probabilities, self.head, tensor(request, "last_hidden_state"),
                                       tensor(request, "sentence_mask"))
            ids, values, counts = outputs_for(scores, self.unit_ids, self.thresholds, self.non_scientific,
                                              self.max_units)
            responses.append(pb_utils.InferenceResponse(output_tensors=[
                pb_utils.Tensor("unit_ids", ids), pb_utils.Tensor("scores", values),
                pb_utils.Tensor("num_units", counts)]))
        return responses
