from __future__ import annotations

import json
from pathlib import Path

import pytest

from scicustom.adapters.onnx_tagger import OnnxTagger
from scicustom.adapters.tagger_artifact_store import TaggerArtifactStore, current_artifact_dir, load_artifact
from scicustom.app.tagging.tagger_training import evaluate_artifact, name_similarity, weak_labeller
from scicustom.core.errors import InvalidInput
from scicustom.core.tagger_training.data_plan import build_datasets
from scicustom.core.tagger_training.dataset import real_split
from tests.unit.tagger.tiny_world import TINY_PLAN, tiny_inputs


def test_training_writes_a_versioned_artifact_and_evaluates_both_taggers(tiny_trained) -> None:  # type: ignore[no-untyped-def]
    home, result = tiny_trained
    directory = current_artifact_dir(Path(home))
    assert directory == result.artifact.directory
    artifact = load_artifact(directory)
    assert artifact.unit_ids == ["ku_1", "ku_2", "ku_3", "ku_4", "ku_5", "ku_6"]
    assert artifact.non_scientific_index == 5 and artifact.max_units == 8
    assert len(artifact.thresholds) == 6 and all(0.0 < t < 1.0 for t in artifact.thresholds)
    training = artifact.records["training"]
    assert training["plan"]["synthetic"] == 600 and training["examples"]["train_synthetic"] == 600
    evaluation = artifact.records["evaluation"]
    for tagger in ("trained", "zeroshot"):
        paper = evaluation["paper_protocol"][tagger]
        assert paper["queries"] == 60 and 0.0 <= paper["micro_f1"] <= 1.0
    # Six units with distinct keywords: even this tiny model must beat chance clearly.
    assert evaluation["paper_protocol"]["trained"]["micro_f1"] > 0.5


def test_held_out_real_items_never_reach_training() -> None:
    inputs = tiny_inputs()
    data = build_datasets(inputs.catalog, inputs.items, name_similarity(inputs.catalog, inputs.embedder,
                                                                        inputs.item_vectors),
                          TINY_PLAN, weak_labeller(inputs.catalog))
    held = {it.id for it in data.heldout_items}
    assert held and all(real_split(i) == "heldout" for i in held)
    used = {ex.item_id for ex in data.train + data.validation if ex.item_id}
    assert used and not used & held
    non_sci = [ex for ex in data.train if ex.unit_ids == ("ku_6",)]
    assert non_sci and all(ex.origin == "real:mmlu" for ex in non_sci)


def test_evaluate_artifact_reproduces_the_paper_test_and_rejects_other_units(tiny_trained) -> None:  # type: ignore[no-untyped-def]
    _, result = tiny_trained
    store = TaggerArtifactStore(result.artifact.directory.parent)
    again = evaluate_artifact(tiny_inputs(), store, load_artifact(result.artifact.directory))
    assert again["paper_protocol"] == result.evaluation["paper_protocol"]
    other = tiny_inputs()
    from scicustom.core.units import KnowledgeUnit, UnitCatalog

    other.catalog = UnitCatalog([*other.catalog.units, KnowledgeUnit("ku_7", "Lung", "anatomy")])
    with pytest.raises(ValueError):
        evaluate_artifact(other, store, load_artifact(result.artifact.directory))


def test_embedded_tagger_rejects_empty_text(tiny_trained) -> None:  # type: ignore[no-untyped-def]
    _, result = tiny_trained
    tagger = OnnxTagger(result.artifact.directory)
    with pytest.raises(InvalidInput, match=r"texts\[1\]: empty text"):
        tagger.tag(["fine", "  "])
    assert tagger.tag([]) == []
    manifest = json.loads((result.artifact.directory / "manifest.json").read_text())
    assert manifest["version"] == tagger.version


def test_evaluation_encodes_each_list_of_texts_once(tiny_trained) -> None:  # type: ignore[no-untyped-def]
    """Both zero-shot baselines tag the same paper queries, and each is built twice (a probe, then
    calibrated): the evaluation asks the embedder for each distinct list once, with the same figures."""
    _, result = tiny_trained
    store = TaggerArtifactStore(result.artifact.directory.parent)
    inputs = tiny_inputs()
    calls: list[tuple[str, ...]] = []
    embedder = inputs.embedder

    class Counting:
        name = embedder.name

        def encode(self, texts):  # type: ignore[no-untyped-def]
            calls.append(tuple(texts))
            return embedder.encode(texts)

    inputs.embedder = Counting()
    again = evaluate_artifact(inputs, store, load_artifact(result.artifact.directory))
    assert len(calls) == len(set(calls)) > 2
    assert again["paper_protocol"] == result.evaluation["paper_protocol"]
