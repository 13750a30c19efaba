"""The fused, dynamically int8-quantised MiniLM graph: derived once into the cache, close to fp32,
each text's vector independent of its neighbours, and a derivation that stops fusing refused."""

from __future__ import annotations

import json
from importlib.metadata import version
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from scicustom.adapters import minilm_q8_export
from scicustom.adapters.minilm_embedder import MiniLMEmbedder
from scicustom.adapters.minilm_onnx_embedder import OnnxMiniLMEmbedder
from scicustom.adapters.minilm_onnx_export import minilm_onnx_name
from scicustom.adapters.minilm_q8_export import FUSED_FILE, GRAPH_FILE, MANIFEST_FILE, minilm_q8_name
from scicustom.bootstrap import Context
from scicustom.config import Settings
from scicustom.core.errors import PreconditionFailed
from tests.unit.adapters.test_minilm_onnx_embedder import TEXTS


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("models")


@pytest.fixture(scope="module")
def q8(cache: Path) -> OnnxMiniLMEmbedder:
    return OnnxMiniLMEmbedder.q8(cache)


@pytest.fixture(scope="module")
def torch_vectors() -> np.ndarray:
    return MiniLMEmbedder().encode(TEXTS)


def test_q8_vectors_are_unit_rows_close_to_fp32(q8: OnnxMiniLMEmbedder, torch_vectors: np.ndarray) -> None:
    vectors = q8.encode(TEXTS)
    assert vectors.shape == torch_vectors.shape == (len(TEXTS), 384) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    cosine = (vectors * torch_vectors).sum(axis=1)
    assert cosine.min() >= 0.99, cosine
    assert cosine.max() < 0.99999, cosine  # quantised: not the fp32 graph under another name
    assert (np.argmax(vectors @ torch_vectors.T, axis=1) == np.arange(len(TEXTS))).all()


def test_the_fused_fp32_step_gives_the_torch_vectors(q8: OnnxMiniLMEmbedder, cache: Path,
                                                     torch_vectors: np.ndarray) -> None:
    fused = OnnxMiniLMEmbedder(cache / minilm_q8_name() / FUSED_FILE, "fused", batch_size=4)
    np.testing.assert_allclose(fused.encode(TEXTS), torch_vectors, atol=2e-5)


def test_a_vector_does_not_depend_on_its_neighbours(q8: OnnxMiniLMEmbedder) -> None:
    together = q8.encode(TEXTS)
    np.testing.assert_array_equal(np.vstack([q8.encode([t]) for t in TEXTS]), together)
    np.testing.assert_array_equal(q8.encode(TEXTS[::-1])[::-1], together)
    assert q8.encode([]).shape == (0, 384)


def test_runs_side_by_side_give_the_vectors_of_runs_one_at_a_time(q8: OnnxMiniLMEmbedder, cache: Path) -> None:
    one_at_a_time = OnnxMiniLMEmbedder.q8(cache, threads=1).encode(TEXTS)
    np.testing.assert_array_equal(OnnxMiniLMEmbedder.q8(cache, threads=3).encode(TEXTS), one_at_a_time)
    np.testing.assert_array_equal(q8.encode(TEXTS), one_at_a_time)


def test_derived_once_under_a_name_that_carries_the_derivation(q8: OnnxMiniLMEmbedder, cache: Path) -> None:
    folder = cache / minilm_q8_name()
    made = (folder / GRAPH_FILE).stat().st_mtime_ns
    assert OnnxMiniLMEmbedder.q8(cache).name == q8.name and (folder / GRAPH_FILE).stat().st_mtime_ns == made
    assert [p.name for p in cache.iterdir()] == [folder.name]  # no partial folder left
    manifest = json.loads((folder / MANIFEST_FILE).read_text())
    assert manifest["tools"]["onnxruntime"] and manifest["quantizer"]["per_channel"] is True
    assert len(manifest["fp32_matmuls"]) == 6  # the FFN output projections
    assert set(manifest["sha256"]) == {FUSED_FILE, GRAPH_FILE}
    assert q8.name.startswith("all-MiniLM-L6-v2-onnx-q8-") and q8.name not in {minilm_onnx_name(), "all-MiniLM-L6-v2"}


def test_another_onnxruntime_is_another_name(monkeypatch: pytest.MonkeyPatch) -> None:
    name = minilm_q8_name()
    monkeypatch.setattr("scicustom.adapters.minilm_q8_export.version",
                        lambda package: "0.0.1" if package == "onnxruntime" else version(package))
    assert minilm_q8_name() != name


def test_a_derivation_that_stops_fusing_is_refused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The transformers attention, as minilm_onnx_export.py exports it, does not fuse.
    def unfusable(bert: Any) -> Any:
        from scicustom.adapters.minilm_onnx_export import _graph

        return _graph(bert)

    monkeypatch.setattr(minilm_q8_export, "_classic_bert", unfusable)
    with pytest.raises(PreconditionFailed, match="'Attention': 0"):
        minilm_q8_export.ensure_minilm_q8(tmp_path)
    assert list(tmp_path.iterdir()) == []  # nothing half-made left to be taken for the graph


def test_the_setting_picks_q8(tmp_path: Path, q8: OnnxMiniLMEmbedder, cache: Path) -> None:
    embedder = Context(Settings(home=tmp_path, embedder="minilm-q8", model_cache_dir=cache)).embedder
    assert isinstance(embedder, OnnxMiniLMEmbedder) and embedder.name == q8.name
