"""The ONNX Runtime perplexity adapter against the torch one on the packaged SmolLM2-135M (slow:
loads both models; the first run exports the graph into the model cache)."""

from __future__ import annotations

import numpy as np
import pytest

from scicustom.adapters.onnx_perplexity import OnnxSmolLMPerplexity, length_buckets
from scicustom.adapters.smollm_perplexity import SmolLMPerplexity
from scicustom.config import Settings

PAIRS = [
    ("What is the capital of France?", "Paris"),
    ("Which gas do plants absorb from the air for photosynthesis?", "Carbon dioxide"),
    ("How many legs does a spider have?", "Eight"),
    ("What is the powerhouse of the cell? " + "It is an organelle found in most eukaryotic cells. " * 12,
     "The mitochondrion, which makes most of the cell's ATP"),
    ("Who wrote Hamlet?", ""),  # an empty answer is scored on the end-of-text token, as torch does
]


def test_length_buckets_cover_every_index_once_within_both_limits() -> None:
    lengths = [5, 300, 7, 6, 40, 41, 5, 2000]
    groups = length_buckets(lengths, batch_size=3, batch_tokens=128)
    assert sorted(i for g in groups for i in g) == list(range(len(lengths)))
    for group in groups:
        assert len(group) <= 3
        assert len(group) == 1 or len(group) * max(lengths[i] for i in group) <= 128
    # Shortest first, each group's rows no longer than the next group's.
    flat = [lengths[i] for g in groups for i in g]
    assert flat == sorted(flat)
    assert groups[-1] == [7] and groups[-2] == [1]  # too long to share: alone


@pytest.mark.slow
def test_onnx_perplexities_equal_the_torch_adapter_within_float_rounding() -> None:
    cache = Settings().model_cache
    onnx = OnnxSmolLMPerplexity(cache, batch_size=2, batch_tokens=64).perplexities(PAIRS)
    torch = SmolLMPerplexity(cache, batch_size=16).perplexities(PAIRS)
    assert np.all(np.isfinite(onnx)) and np.all(onnx > 1.0)
    np.testing.assert_allclose(onnx, torch, rtol=1e-4)
    # Batching and padding do not change an item's value beyond float rounding.
    alone = OnnxSmolLMPerplexity(cache, batch_size=1).perplexities(PAIRS[3:4])
    np.testing.assert_allclose(alone, onnx[3:4], rtol=1e-5)
