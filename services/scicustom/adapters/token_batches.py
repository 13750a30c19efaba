"""Right-padded token batches for the local causal LMs (perplexity and MCQ scoring)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def right_padded(sequences: Sequence[Sequence[int]], pad_id: int) -> tuple[Any, Any]:
    """(input ids, attention mask) tensors, each row padded on the right to the longest sequence."""
    import torch

    width = max(map(len, sequences))
    ids = torch.full((len(sequences), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(sequences), width), dtype=torch.long)
    for row, seq in enumerate(sequences):
        ids[row, : len(seq)] = torch.tensor(list(seq))
        mask[row, : len(seq)] = 1
    return ids, mask
