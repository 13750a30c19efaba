"""The on-disk cache of ontology label vectors: chunked encoding, each label once, one file per embedder."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from scicustom.adapters import ontology_label_vectors
from scicustom.adapters.ontology_label_vectors import LabelVectorCache
from scicustom.bootstrap import Context
from scicustom.config import Settings
from tests.support.hashing_embedder import HashingEmbedder


class CountingEncoder(HashingEmbedder):
    def __init__(self) -> None:
        super().__init__(dim=32)
        self.calls: list[int] = []

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        self.calls.append(len(texts))
        return super().encode(texts)


def test_labels_are_encoded_in_chunks_once_and_read_back(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ontology_label_vectors, "ENCODE_CHUNK", 3)
    triples = [("go", f"GO:{i:07d}", f"label number {i} of a process") for i in range(8)]
    encoder = CountingEncoder()
    cache = LabelVectorCache(tmp_path / "labels.npz", encoder)
    vectors = cache.vectors(triples)
    assert encoder.calls == [3, 3, 2]
    np.testing.assert_array_equal(vectors, HashingEmbedder(dim=32).encode([t[2] for t in triples]))
    again = LabelVectorCache(tmp_path / "labels.npz", encoder)
    np.testing.assert_array_equal(again.vectors(triples[::-1]), vectors[::-1])
    assert encoder.calls == [3, 3, 2]  # nothing encoded twice, across instances


def test_each_embedder_has_its_own_label_vector_file(tmp_path: Path) -> None:
    default = Context(Settings(home=tmp_path)).label_vectors()
    int8 = Context(Settings(home=tmp_path, embedder="minilm-int8")).label_vectors()
    assert isinstance(default, LabelVectorCache) and isinstance(int8, LabelVectorCache)
    assert default.path.name == "label_vectors.npz"  # what existing homes hold (fp32 MiniLM)
    assert int8.path.parent == default.path.parent and int8.path != default.path
    assert "onnx-int8" in int8.path.name
