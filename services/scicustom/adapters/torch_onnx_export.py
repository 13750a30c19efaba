"""Export the scoring graph to ONNX (dynamic batch and sequence axes)."""

from __future__ import annotations

import io
import warnings
from collections.abc import Sequence

import torch

from scicustom.adapters.torch_tagger_network import ScoringGraph, StaticTokenTagger

INPUT_IDS = "input_ids"
ATTENTION_MASK = "attention_mask"
SCORES = "scores"
OPSET = 17


def export_onnx(model: StaticTokenTagger | Sequence[StaticTokenTagger]) -> bytes:
    """One network, or an ensemble whose probabilities the graph averages."""
    # The wrapper must be in eval mode too: export restores the wrapper's mode on every submodule.
    graph = ScoringGraph([model] if isinstance(model, StaticTokenTagger) else model).eval()
    example = torch.ones((2, 4), dtype=torch.int64)
    sink = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.onnx.export(
            graph, (example, example), sink, input_names=[INPUT_IDS, ATTENTION_MASK], output_names=[SCORES],
            dynamic_axes={INPUT_IDS: {0: "batch", 1: "tokens"}, ATTENTION_MASK: {0: "batch", 1: "tokens"},
                          SCORES: {0: "batch"}},
            opset_version=OPSET, dynamo=False,
        )
    return sink.getvalue()
