"""The sentence-vector head: its scores, its file, training it on the `train` items only, and every
tagger path that serves it (the embedded tagger with the caller's vectors or its embedder, the retag)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.linear_model import LogisticRegression

from scicustom.adapters.filesystem_store import FilesystemObjectStore
from scicustom.adapters.onnx_tagger import OnnxTagger
from scicustom.adapters.parquet_corpus import ParquetCorpusRepository
from scicustom.adapters.sparse_unit_index_writer import SparseUnitIndexWriter
from scicustom.adapters.tagger_artifact_store import TaggerArtifactStore, load_artifact
from scicustom.app.tagging import tagger_training
from scicustom.app.tagging.trained_tagging import retag_with_trained
from scicustom.core.errors import InvalidInput, PreconditionFailed
from scicustom.core.tagger_training.vector_head import VectorHead, fit_vector_head
from tests.support.hashing_embedder import HashingEmbedder
from tests.unit.tagger.tiny_world import TINY_CONFIG, TINY_PLAN, tiny_inputs, tiny_trainer, with_gold


def _unit_rows(rng: np.random.Generator, n: int, dims: int) -> np.ndarray:
    x = rng.normal(size=(n, dims))
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def test_the_head_scores_as_the_fitted_regression_in_the_unit_columns() -> None:
    rng = np.random.default_rng(0)
    x = _unit_rows(rng, 60, 8)
    labels = [[int(c)] for c in rng.choice([1, 3, 4], size=60)]
    head = fit_vector_head(x, labels, units=6, blend=2.0, embedder="hash")
    assert head is not None and head.columns.tolist() == [1, 3, 4]
    reference = LogisticRegression(C=8.0, max_iter=400).fit(x.astype(np.float64), [c[0] for c in labels])
    scores = head.scores(x)
    assert scores[:, [0, 2, 5]].max() == 0.0
    np.testing.assert_allclose(scores[:, [1, 3, 4]], reference.predict_proba(x), atol=1e-5)


def test_two_units_give_the_binary_regressions_probabilities_and_one_unit_gives_no_head() -> None:
    rng = np.random.default_rng(1)
    x = _unit_rows(rng, 30, 5)
    y = [0 if v[0] > 0 else 2 for v in x]
    head = fit_vector_head(x, [[c] for c in y], units=3, blend=1.0, embedder="hash")
    assert head is not None
    reference = LogisticRegression(C=8.0, max_iter=400).fit(x.astype(np.float64), y)
    np.testing.assert_allclose(head.scores(x)[:, [0, 2]], reference.predict_proba(x), atol=1e-5)
    assert fit_vector_head(x, [[1]] * 30, units=3, blend=1.0, embedder="hash") is None


@settings(max_examples=30, deadline=None)
@given(st.floats(0.0, 10.0), st.integers(0, 2**31 - 1))
def test_a_blend_stays_a_probability_and_blend_zero_is_the_network(blend: float, seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = _unit_rows(rng, 12, 4)
    head = fit_vector_head(x, [[i % 3] for i in range(12)], units=4, blend=blend, embedder="hash")
    assert head is not None
    network = rng.uniform(size=(12, 4)).astype(np.float32)
    blended = head.blended(network, x)
    assert blended.dtype == np.float32 and blended.min() >= 0.0 and blended.max() <= 1.0 + 1e-6
    if blend == 0.0:
        np.testing.assert_array_equal(blended, network)


def test_the_file_round_trips_and_the_fingerprint_ignores_when_it_was_written() -> None:
    rng = np.random.default_rng(2)
    x = _unit_rows(rng, 20, 6)
    head = fit_vector_head(x, [[i % 4, (i + 1) % 4] for i in range(20)], units=5, blend=2.0, embedder="minilm")
    assert head is not None
    again = VectorHead.from_bytes(head.to_bytes())
    np.testing.assert_array_equal(again.scores(x), head.scores(x))
    assert (again.units, again.blend, again.embedder) == (5, 2.0, "minilm")
    assert again.fingerprint() == head.fingerprint()
    assert replace(head, blend=1.0).fingerprint() != head.fingerprint()


@pytest.fixture(scope="module")
def trained_with_head(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    root = tmp_path_factory.mktemp("head") / "models" / "tagger"
    inputs = with_gold(tiny_inputs())
    fitted: list[tuple[np.ndarray, list[list[int]]]] = []

    def recording_fit(vectors, labels, units, blend, embedder):  # type: ignore[no-untyped-def]
        fitted.append((vectors, labels))
        return fit_vector_head(vectors, labels, units, blend, embedder)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(tagger_training, "fit_vector_head", recording_fit)
        result = tagger_training.train(inputs, tiny_trainer(), TaggerArtifactStore(root), TINY_PLAN, TINY_CONFIG)
    return inputs, result, fitted


def test_training_fits_the_head_on_the_train_items_only_and_stores_it(trained_with_head) -> None:  # type: ignore[no-untyped-def]
    inputs, result, fitted = trained_with_head
    (vectors, labels), = fitted
    train = [g for g in inputs.gold if g.split == "train"]
    row = {it.id: r for r, it in enumerate(inputs.items)}
    np.testing.assert_array_equal(vectors, inputs.item_vectors[[row[g.item.id] for g in train]])
    assert len(labels) == len(train)
    artifact = load_artifact(result.artifact.directory)
    assert artifact.head is not None and artifact.head.embedder == inputs.embedder.name
    assert artifact.records["training"]["config"]["head_blend"] == 2.0
    assert "vector_head" not in artifact.records  # the manifest's description, not a record
    np.testing.assert_array_equal(artifact.head.weights, result.artifact.head.weights)


def test_blend_zero_trains_no_head_and_the_version_differs(trained_with_head, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    _, with_head, _ = trained_with_head
    without = tagger_training.train(with_gold(tiny_inputs()), tiny_trainer(), TaggerArtifactStore(tmp_path),
                                    TINY_PLAN, replace(TINY_CONFIG, head_blend=0.0))
    assert without.artifact.head is None and not (without.artifact.directory / "vector_head.npz").exists()
    assert without.artifact.version != with_head.artifact.version


class _CountingEmbedder:
    def __init__(self, inner: HashingEmbedder) -> None:
        self.name = inner.name
        self._inner = inner
        self.texts = 0

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        self.texts += len(texts)
        return self._inner.encode(texts)


def test_the_embedded_tagger_reads_given_vectors_or_encodes_with_its_embedder(trained_with_head) -> None:  # type: ignore[no-untyped-def]
    inputs, result, _ = trained_with_head
    texts = [it.text for it in inputs.items[:10]]
    vectors = inputs.embedder.encode(texts)
    without_embedder = OnnxTagger(result.artifact.directory)
    given_vectors = without_embedder.tag(texts, vectors)
    with pytest.raises(PreconditionFailed, match="reads sentence vectors"):
        without_embedder.tag(texts)
    embedder = _CountingEmbedder(inputs.embedder)  # type: ignore[arg-type]
    tagger = OnnxTagger(result.artifact.directory, embedder=embedder)
    assert tagger.tag(texts) == given_vectors and embedder.texts == len(texts)
    assert tagger.tag(texts, vectors) == given_vectors and embedder.texts == len(texts)
    np.testing.assert_allclose(tagger.scores(texts, vectors),
                               result.artifact.head.blended(tagger.network_scores(texts), vectors), atol=1e-6)
    with pytest.raises(InvalidInput, match=r"vectors: expected shape \[10, 64\]"):
        tagger.tag(texts, vectors[:, :32])
    with pytest.raises(InvalidInput, match="finite"):
        tagger.tag(texts, np.full_like(vectors, np.nan))


def test_the_retag_reads_the_stored_vectors_and_embeds_none(trained_with_head, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    inputs, result, _ = trained_with_head
    repo = ParquetCorpusRepository(FilesystemObjectStore(tmp_path / "store"))
    repo.save_items(inputs.items)
    repo.add_embeddings(inputs.embedder.name, [it.id for it in inputs.items], inputs.item_vectors)
    embedder = _CountingEmbedder(inputs.embedder)  # type: ignore[arg-type]
    artifacts = TaggerArtifactStore(result.artifact.directory.parent)
    report = retag_with_trained(repo, artifacts, result.artifact.version, SparseUnitIndexWriter(repo.store), embedder)
    assert report.tagged == len(inputs.items) and embedder.texts == 0
    expected = OnnxTagger(result.artifact.directory).tag([it.text for it in inputs.items], inputs.item_vectors)
    tags = repo.load_tags(result.artifact.version)
    assert [tags[it.id] for it in inputs.items] == [[(s.unit_id, s.score) for s in row] for row in expected]
