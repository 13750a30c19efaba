"""The tagger network: weighted mean of static token vectors -> batch norm -> MLP -> a logit per unit.

No attention: a text costs one gather and a sum per token, so CPU tagging runs at thousands of
texts per second. Token vectors start from MiniLM (token_vectors.py) and a learned per-token
weight lets the model ignore template and function words. MiniLM vectors share a large common
direction; the batch norm removes it so the head sees the differences between texts. (A max-pooled
width-3 convolution branch was tried: 2.4x slower to train, no better after an epoch.)

With `unit_votes`, every token also carries a learned vote per unit, averaged with the same token
weights and added to the head's logits: a linear bag-of-words branch. A query naming five units
keeps five separate signals there, where the pooled vector blurs them into one point.
"""

from __future__ import annotations

import numpy as np
import torch
from torch import nn


# Adam moves a vote by about its learning rate per step whatever the gradient; scaling the weighted
# mean by a typical query length lets a keyword's votes reach a decisive logit in a few hundred steps.
VOTE_SCALE = 32.0


class StaticTokenTagger(nn.Module):
    def __init__(self, token_vectors: np.ndarray, token_log_weights: np.ndarray, n_units: int,
                 hidden: int = 512, dropout: float = 0.1, unit_votes: bool = False) -> None:
        super().__init__()
        vocab, dim = token_vectors.shape
        # Sparse gradients: a batch touches a few thousand of the 30k rows.
        self.embedding = nn.Embedding(vocab, dim, sparse=True)
        self.embedding.weight.data.copy_(torch.from_numpy(np.ascontiguousarray(token_vectors, dtype=np.float32)))
        self.log_weight = nn.Embedding(vocab, 1, sparse=True)
        self.log_weight.weight.data.copy_(torch.from_numpy(
            np.ascontiguousarray(token_log_weights, dtype=np.float32).reshape(vocab, 1)))
        self.norm = nn.BatchNorm1d(dim)
        self.head = nn.Sequential(nn.Linear(dim, hidden), nn.GELU(), nn.Dropout(dropout),
                                  nn.Linear(hidden, n_units))
        # Starts at zero: training begins as the plain pooled model.
        self.votes = nn.Embedding(vocab, n_units, sparse=True) if unit_votes else None
        if self.votes is not None:
            nn.init.zeros_(self.votes.weight)

    def _token_weights(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        """Per token, its share of the text: exp(log weight), masked, normalised to sum 1."""
        weights = torch.exp(self.log_weight(input_ids).squeeze(-1)) * attention_mask.to(torch.float32)
        return weights / weights.sum(dim=1, keepdim=True).clamp_min(1e-6)

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        weights = self._token_weights(input_ids, attention_mask).unsqueeze(-1)
        logits = self.head(self.norm((self.embedding(input_ids) * weights).sum(dim=1)))
        if self.votes is not None:
            logits = logits + VOTE_SCALE * (self.votes(input_ids) * weights).sum(dim=1)
        return logits


class ScoringGraph(nn.Module):
    """What is exported to ONNX: ids and mask in, per-unit probabilities out."""

    def __init__(self, tagger: StaticTokenTagger) -> None:
        super().__init__()
        self.tagger = tagger

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor) -> torch.Tensor:
        return torch.sigmoid(self.tagger(input_ids, attention_mask))


def idf_log_weights(token_rows: list[list[int]], vocab: int) -> np.ndarray:
    """log of a smoothed IDF per token, from the training texts: rare tokens start heavier."""
    df = np.zeros(vocab, dtype=np.float64)
    for row in token_rows:
        df[np.unique(np.asarray(row, dtype=np.int64))] += 1
    idf = np.log((1 + len(token_rows)) / (1 + df)) + 1.0
    return np.log(idf).astype(np.float32)
