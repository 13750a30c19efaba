"""The Embedder port on the packaged all-MiniLM-L6-v2 (sentence-transformers, CPU)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from scicustom.adapters.packaged_models import MINILM_NAME, load_minilm


class MiniLMEmbedder:
    name = MINILM_NAME

    def __init__(self, batch_size: int = 64) -> None:
        self._batch_size = batch_size

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, 384), dtype=np.float32)
        vectors = load_minilm().encode(list(texts), batch_size=self._batch_size,
                                       normalize_embeddings=True, show_progress_bar=False,
                                       convert_to_numpy=True)
        return np.asarray(vectors, dtype=np.float32)
