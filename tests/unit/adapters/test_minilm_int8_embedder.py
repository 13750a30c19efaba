"""The int8 ONNX MiniLM embedder against the fp32 one it stands in for, and the index's embedder record."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from scicustom.adapters.filesystem_store import FilesystemObjectStore
from scicustom.adapters.minilm_embedder import MiniLMEmbedder
from scicustom.adapters.minilm_int8_embedder import MINILM_INT8_NAME, MiniLMInt8Embedder, length_buckets
from scicustom.adapters.parquet_corpus import ParquetCorpusRepository
from scicustom.adapters.sparse_unit_index_writer import SparseUnitIndexWriter
from scicustom.app.index_keys import CURRENT_INDEX_KEY
from scicustom.app.tagging.trained_tagging import retag_corpus
from scicustom.bootstrap import Context
from scicustom.config import Settings
from scicustom.core.corpus_item import make_item
from scicustom.core.errors import PreconditionFailed
from scicustom.ports import UnitScore

TEXTS = [
    "Which enzyme unwinds the DNA double helix during replication?\nAnswer: helicase",
    "What is the SI unit of electric charge?\nAnswer: coulomb",
    "A patient presents with fever and a maculopapular rash after a tick bite.\nAnswer: Rocky Mountain spotted fever",
    "Photosynthesis\nAnswer: light",
    # Longer than the 256-token limit: both embedders must truncate it the same way.
    " ".join(["The mitochondrion produces ATP through oxidative phosphorylation across its inner membrane."] * 40)
    + "\nAnswer: cristae",
    "In a galvanic cell, where does oxidation occur?\nAnswer: at the anode",
]


@pytest.fixture(scope="module")
def int8_vectors() -> np.ndarray:
    return MiniLMInt8Embedder(batch_size=2).encode(TEXTS)


def test_int8_vectors_are_unit_rows_close_to_fp32(int8_vectors: np.ndarray) -> None:
    fp32 = MiniLMEmbedder().encode(TEXTS)
    assert int8_vectors.shape == fp32.shape == (len(TEXTS), 384) and int8_vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(int8_vectors, axis=1), 1.0, atol=1e-5)
    cosine = (int8_vectors * fp32).sum(axis=1)
    assert cosine.min() >= 0.99, cosine
    # Not the same vector under another name: each text is still nearest its own fp32 vector.
    assert (np.argmax(int8_vectors @ fp32.T, axis=1) == np.arange(len(TEXTS))).all()


def test_rows_come_back_in_input_order(int8_vectors: np.ndarray) -> None:
    # Batches are formed by token length (the long text last), then scattered back.
    one_by_one = np.vstack([MiniLMInt8Embedder().encode([t]) for t in TEXTS])
    np.testing.assert_allclose(int8_vectors, one_by_one, atol=2e-5)
    reversed_rows = MiniLMInt8Embedder(batch_size=4).encode(TEXTS[::-1])
    np.testing.assert_allclose(reversed_rows[::-1], int8_vectors, atol=2e-5)


def test_no_text_no_rows() -> None:
    assert MiniLMInt8Embedder().encode([]).shape == (0, 384)


def test_length_buckets_cover_every_row_once_shortest_first() -> None:
    lengths = [9, 3, 7, 3, 12, 1, 5]
    batches = length_buckets(lengths, 3)
    assert [len(b) for b in batches] == [3, 3, 1]
    flat = np.concatenate(batches)
    assert sorted(flat.tolist()) == list(range(len(lengths)))
    assert [lengths[i] for i in flat] == sorted(lengths)
    assert flat[:2].tolist() == [5, 1]  # ties keep input order (stable)


def test_the_setting_picks_the_embedder_and_names_differ(tmp_path: Path) -> None:
    assert Context(Settings(home=tmp_path)).embedder.name == "all-MiniLM-L6-v2"
    int8 = Context(Settings(home=tmp_path, embedder="minilm-int8")).embedder
    assert isinstance(int8, MiniLMInt8Embedder) and int8.name == MINILM_INT8_NAME != "all-MiniLM-L6-v2"


class _FirstUnit:
    version = "trained-test"

    def tag(self, texts: list[str]) -> list[list[UnitScore]]:
        return [[UnitScore("ku_1", 0.9)] for _ in texts]


def test_an_index_is_refused_to_a_process_with_another_embedder(tmp_path: Path) -> None:
    store_dir = Settings(home=tmp_path).store_dir
    repo = ParquetCorpusRepository(FilesystemObjectStore(store_dir))
    repo.save_items([make_item("sciq", "CC BY-NC 3.0", "biology", "What carries oxygen in blood?", [], None,
                               "haemoglobin")])
    repo.store.put_bytes(CURRENT_INDEX_KEY, json.dumps({"tagger_version": "zeroshot-x", "index_key": "k",
                                                        "embedder": MINILM_INT8_NAME}).encode())
    # A trained retag keeps the record: the stored vectors are still the int8 ones.
    retag_corpus(repo, _FirstUnit(), ["ku_1"], None, SparseUnitIndexWriter(repo.store))
    current = json.loads(repo.store.get_bytes(CURRENT_INDEX_KEY))
    assert current["tagger_version"] == "trained-test" and current["embedder"] == MINILM_INT8_NAME
    assert Context(Settings(home=tmp_path, embedder="minilm-int8")).current_index() == current
    with pytest.raises(PreconditionFailed, match="SCICUSTOM_EMBEDDER"):
        Context(Settings(home=tmp_path)).current_index()
