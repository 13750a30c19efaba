"""A deterministic bag-of-words Embedder for tests: stemmed tokens hashed into a fixed dimension.

It implements the Embedder port for real (texts sharing words get similar vectors), so pipeline
tests run the genuine judges without loading a neural model.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np

from scicustom.core.lexical import tokenize
from scicustom.ports import Embedder


class HashingEmbedder(Embedder):
    name = "hashing-test"

    def __init__(self, dim: int = 256) -> None:
        self.dim = dim

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for row, text in enumerate(texts):
            for token in tokenize(text):
                slot = int.from_bytes(hashlib.md5(token.encode()).digest()[:4], "big") % self.dim
                out[row, slot] += 1.0
            norm = np.linalg.norm(out[row])
            if norm:
                out[row] /= norm
        return out
