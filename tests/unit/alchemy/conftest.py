from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence

import numpy as np


class WordHashEmbedder:
    """A deterministic Embedder port: hashed bag of words, L2-normalised (no model to load)."""

    name = "word-hash-64"

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), 64), dtype=np.float32)
        for row, text in enumerate(texts):
            for word in re.findall(r"[a-z0-9]+", text.lower()):
                out[row, int(hashlib.md5(word.encode()).hexdigest(), 16) % 64] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.where(norms == 0, 1.0, norms)
