"""The tagger network: weighted mean and max of static token vectors -> batch norm -> MLP -> a logit
per unit.

No attention: a text costs one gather and a sum per token, so CPU tagging runs at thousands of
texts per second. Token vectors start from MiniLM (minilm_token_vectors.py) and a learned per-token
weight lets the model ignore template and function words. MiniLM vectors share a large common
direction; the batch norm removes it so the head sees the differences between texts. (A max-pooled
width-3 convolution branch was tried: 2.4x slower to train, no better after an epoch; so was a
per-token linear unit-vote branch: it memorised the training queries, paper-protocol micro-F1 0.44.)
The max-pooled half keeps each dimension's strongest token, which a mean of a query naming five
concepts blurs away: with 40k queries, 4 epochs, one network, micro-F1 0.654 -> 0.700, recall on
5-unit queries most of the gain. A token-level projection before the max added 0.017 for 3x the
training time and was left out.

The exported model averages the probabilities of several such networks (ScoringGraph): members whose
token vectors were tuned at different rates err differently, and each costs only a gather and a sum.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import torch
from torch import nn
from torch.nn import functional


class StaticTokenTagger(nn.Module):
    def __init__(self, token_vectors: np.ndarray, token_log_weights: np.ndarray, n_units: int,
                 hidden: int = 512, dropout: float = 0.1, max_pool: bool = True) -> None:
        super().__init__()
        vocab, dim = token_vectors.shape
        self.max_pool = max_pool
        # Sparse gradients: a batch touches a few thousand of the 30k rows.
        self.embedding = nn.Embedding(vocab, dim, sparse=True)
        self.embedding.weight.data.copy_(torch.from_numpy(np.ascontiguousarray(token_vectors, dtype=np.float32)))
        self.log_weight = nn.Embedding(vocab, 1, sparse=True)
        self.log_weight.weight.data.copy_(torch.from_numpy(
            np.ascontiguousarray(token_log_weights, dtype=np.float32).reshape(vocab, 1)))
        width = 2 * dim if max_pool else dim
        self.norm = nn.BatchNorm1d(width)
        self.head = nn.Sequential(nn.Linear(width, hidden), nn.GELU(), nn.Dropout(dropout),
                                  nn.Linear(hidden, n_units))

    def pooled(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        mask = attention_mask.to(torch.float32)
        weights = torch.exp(self.log_weight(input_ids).squeeze(-1)) * mask
        vectors = self.embedding(input_ids)
        pooled = (vectors * weights.unsqueeze(-1)).sum(dim=1) / weights.sum(dim=1, keepdim=True).clamp_min(1e-6)
        if self.max_pool:
            # Each dimension's strongest token: a mean blurs a query of several concepts into one point.
            masked = vectors.masked_fill(mask.unsqueeze(-1) == 0, -1e4)
            pooled = torch.cat([pooled, masked.max(dim=1).values], dim=1)
        return self.norm(pooled)

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        return self.head(self.pooled(input_ids, attention_mask))

    def packed_logits(self, token_ids: torch.Tensor, offsets: torch.Tensor) -> torch.Tensor:
        """`forward` on texts packed end to end (text i's tokens start at offsets[i]), for training.

        The padded path materialises batch x length x dim tensors several times over and hands
        SparseAdam one gradient row per token; here embedding_bag pools without them, over the
        batch's distinct tokens, so the sparse gradient has one row per distinct token. Same
        function to float rounding (tests/unit/tagger/test_packed_training.py); 1.9-2.5x the
        examples/s on real questions (benchmarks/bench_tagger_training.py), 2.1x for the full training.
        """
        distinct, inverse = torch.unique(token_ids, return_inverse=True)
        vectors = functional.embedding(distinct, self.embedding.weight, sparse=True)
        weights = torch.exp(functional.embedding(distinct, self.log_weight.weight, sparse=True).squeeze(-1))[inverse]
        texts = len(offsets)
        lengths = torch.diff(offsets, append=torch.tensor([len(token_ids)]))
        weight_sums = torch.zeros(texts).index_add_(0, torch.repeat_interleave(torch.arange(texts), lengths),
                                                    weights)
        pooled = functional.embedding_bag(inverse, vectors, offsets, mode="sum", per_sample_weights=weights)
        pooled = pooled / weight_sums.clamp_min(1e-6).unsqueeze(1)
        if self.max_pool:
            pooled = torch.cat([pooled, functional.embedding_bag(inverse, vectors, offsets, mode="max")], dim=1)
        return self.head(self.norm(pooled))


class ScoringGraph(nn.Module):
    """What is exported to ONNX: ids and mask in, per-unit probabilities (the members' mean) out."""

    def __init__(self, members: Sequence[StaticTokenTagger]) -> None:
        super().__init__()
        if not members:
            raise ValueError("a scoring graph needs at least one network")
        self.members = nn.ModuleList(members)

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        probabilities = [torch.sigmoid(member(input_ids, attention_mask)) for member in self.members]
        return torch.stack(probabilities).mean(dim=0)


def idf_log_weights(token_rows: list[list[int]], vocab: int) -> np.ndarray:
    """log of a smoothed IDF per token, from the training texts: rare tokens start heavier."""
    df = np.zeros(vocab, dtype=np.float64)
    for row in token_rows:
        df[np.unique(np.asarray(row, dtype=np.int64))] += 1
    idf = np.log((1 + len(token_rows)) / (1 + df)) + 1.0
    return np.log(idf).astype(np.float32)
