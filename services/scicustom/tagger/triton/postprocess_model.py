"""Triton Python-backend model `tagger_postprocess`: per-unit probabilities -> the best units.

Applies the calibrated per-unit thresholds and the at-most-8 rule exactly as the embedded tagger
(scicustom.core.tagger_training.decoding), from `decoding.json` beside this file.
"""

from __future__ import annotations

import json
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


class TritonPythonModel:
    def initialize(self, args: dict[str, Any]) -> None:
        spec = json.loads((Path(__file__).parent / "decoding.json").read_text(encoding="utf-8"))
        self.unit_ids = list(spec["unit_ids"])
        self.thresholds = np.asarray(spec["thresholds"], dtype=np.float32)
        self.non_scientific = spec["non_scientific_index"]
        self.max_units = int(spec["max_units"])

    def execute(self, requests: list[Any]) -> list[Any]:
        import triton_python_backend_utils as pb_utils

        responses = []
        for request in requests:
            scores = pb_utils.get_input_tensor_by_name(request, "probabilities").as_numpy()
            ids, values, counts = outputs_for(scores, self.unit_ids, self.thresholds, self.non_scientific,
                                              self.max_units)
            responses.append(pb_utils.InferenceResponse(output_tensors=[
                pb_utils.Tensor("unit_ids", ids), pb_utils.Tensor("scores", values),
                pb_utils.Tensor("num_units", counts)]))
        return responses
