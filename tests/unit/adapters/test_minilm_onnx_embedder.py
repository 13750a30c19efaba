"""The ONNX MiniLM embedders (fp32 export, int8 package) against the torch one, and the index's embedder record."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from scicustom.adapters.filesystem_store import FilesystemObjectStore
from scicustom.adapters.minilm_embedder import MiniLMEmbedder
from scicustom.adapters.minilm_onnx_embedder import MINILM_INT8_NAME, OnnxMiniLMEmbedder, length_buckets
from scicustom.adapters.minilm_onnx_export import minilm_onnx_name
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
    return OnnxMiniLMEmbedder.int8(batch_size=2).encode(TEXTS)


@pytest.fixture(scope="module")
def torch_vectors() -> np.ndarray:
    return MiniLMEmbedder().encode(TEXTS)


def test_the_fp32_export_gives_the_torch_vectors_and_is_made_once(tmp_path_factory: pytest.TempPathFactory,
                                                                   torch_vectors: np.ndarray) -> None:
    cache = tmp_path_factory.mktemp("models")
    embedder = OnnxMiniLMEmbedder.fp32(cache, batch_size=4)
    graph = cache / minilm_onnx_name() / "model.onnx"
    assert embedder.name == minilm_onnx_name() != "all-MiniLM-L6-v2" and graph.exists()
    np.testing.assert_allclose(embedder.encode(TEXTS), torch_vectors, atol=2e-5)
    made = graph.stat().st_mtime_ns
    assert OnnxMiniLMEmbedder.fp32(cache).name == embedder.name and graph.stat().st_mtime_ns == made
    assert [p.name for p in cache.iterdir()] == [minilm_onnx_name()]  # no partial folder left


def test_int8_vectors_are_unit_rows_close_to_fp32(int8_vectors: np.ndarray, torch_vectors: np.ndarray) -> None:
    fp32 = torch_vectors
    assert int8_vectors.shape == fp32.shape == (len(TEXTS), 384) and int8_vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(int8_vectors, axis=1), 1.0, atol=1e-5)
    cosine = (int8_vectors * fp32).sum(axis=1)
    assert cosine.min() >= 0.99, cosine
    # Not the same vector under another name: each text is still nearest its own fp32 vector.
    assert (np.argmax(int8_vectors @ fp32.T, axis=1) == np.arange(len(TEXTS))).all()


def test_rows_come_back_in_input_order(int8_vectors: np.ndarray) -> None:
    # Batches are formed by token length (the long text last), then scattered back.
    one_by_one = np.vstack([OnnxMiniLMEmbedder.int8().encode([t]) for t in TEXTS])
    np.testing.assert_allclose(int8_vectors, one_by_one, atol=2e-5)
    reversed_rows = OnnxMiniLMEmbedder.int8(batch_size=4).encode(TEXTS[::-1])
    np.testing.assert_allclose(reversed_rows[::-1], int8_vectors, atol=2e-5)


def test_no_text_no_rows() -> None:
    assert OnnxMiniLMEmbedder.int8().encode([]).shape == (0, 384)


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
    assert isinstance(int8, OnnxMiniLMEmbedder) and int8.name == MINILM_INT8_NAME != "all-MiniLM-L6-v2"


class _FirstUnit:
    version = "trained-test"

    def tag(self, texts: list[str], vectors: object = None) -> list[list[UnitScore]]:
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
