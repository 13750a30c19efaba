"""Hand-labelled real questions: parsing, scores, the neighbour teacher, and training that uses them
without ever training on the items that measure it."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from scicustom.app.tagging.gold_items import packaged_gold_items
from scicustom.app.tagging.tagger_training import train
from scicustom.core.errors import InvalidInput
from scicustom.core.tagger_training.gold_set import gold_examples, gold_scores, parse_gold_set
from scicustom.core.tagger_training.gold_teacher import GoldNeighbourTeacher, TeacherParams, teacher_examples
from scicustom.core.units import UnitCatalog
from tests.unit.tagger.tiny_world import (
    TINY_CONFIG,
    TINY_PLAN,
    UNITS,
    corpus_items,
    tiny_inputs,
    tiny_trainer,
    with_gold,
)

CATALOG = UnitCatalog.from_mapping(UNITS)


def _line(**fields: object) -> str:
    row = {"id": "mmlu-1", "source": "mmlu", "licence": "MIT", "subject": "virology", "split": "dev",
           "question": "Which virus family includes influenza?", "options": ["Orthomyxoviridae", "Retroviridae"],
           "answer": "Orthomyxoviridae", "gold": ["Virology"], **fields}
    return json.dumps(row)


def test_parses_labelled_items_with_the_corpus_text_and_skips_unlabelled_ones() -> None:
    items = parse_gold_set([_line(), "", _line(id="mmlu-2", gold=[])], CATALOG, "gold")
    assert [(g.item.id, g.split, g.gold) for g in items] == [("mmlu-1", "dev", ("Virology",))]
    assert items[0].item.text == "Which virus family includes influenza?\nAnswer: Orthomyxoviridae"
    assert items[0].item.answer_index == 0


@pytest.mark.parametrize(("line", "problem"), [
    (_line(gold=["Not a unit"]), "line 1: gold names units not in the unit set"),
    (_line(gold="Virology"), "line 1: gold must be a list"),
    (_line(gold=["Optics"] * 6), "line 1: gold must be a list of at most 5"),
    (_line(split="test"), "line 1: split must be one of"),
])
def test_a_bad_line_names_its_line_and_problem(line: str, problem: str) -> None:
    with pytest.raises(InvalidInput, match=problem):
        parse_gold_set([line], CATALOG, "gold")


def test_unknown_units_drop_the_item_when_asked() -> None:
    assert parse_gold_set([_line(gold=["Not a unit"])], CATALOG, "gold", skip_unknown=True) == []


def test_scores_count_a_top_unit_that_is_any_gold_unit_as_a_hit() -> None:
    gold = parse_gold_set([_line(gold=["Virology", "Heart"]), _line(id="b", gold=["Optics"])], CATALOG, "g")
    report = gold_scores(CATALOG, gold, [["Heart"], ["Virology", "Optics"]])
    assert report["top1_hit"] == 0.5
    assert report["micro_precision"] == pytest.approx(2 / 3, abs=1e-4)
    assert report["micro_recall"] == pytest.approx(2 / 3, abs=1e-4)
    assert report["domain_agreement"] == 0.5


def test_gold_examples_repeat_items_with_unit_ids() -> None:
    gold = parse_gold_set([_line(gold=["Virology", "Heart"])], CATALOG, "g")
    examples = gold_examples(CATALOG, gold, repeats=3)
    assert len(examples) == 3 and examples[0].unit_ids == ("ku_2", "ku_3") and examples[0].origin == "gold:mmlu"


def _unit_vectors(n_units: int, dims: int = 8) -> np.ndarray:
    return np.eye(n_units, dims, dtype=np.float32)


@given(st.integers(0, 3), st.floats(0.05, 0.4))
def test_the_teacher_labels_an_item_like_its_labelled_neighbours(unit: int, noise: float) -> None:
    protos = _unit_vectors(4)
    gold = np.repeat(protos, 3, axis=0)
    columns = [[u] for u in range(4) for _ in range(3)]
    teacher = GoldNeighbourTeacher(gold, columns, protos, TeacherParams(neighbours=3))
    item = protos[unit] + noise * protos[(unit + 1) % 4]
    item /= np.linalg.norm(item)
    assert teacher.labels(item[None])[0][0] == unit


def test_the_teacher_keeps_to_the_allowed_units_and_adds_a_close_second() -> None:
    protos = _unit_vectors(3)
    params = TeacherParams(neighbours=1, prototype_weight=0.0, second_unit_ratio=0.4)
    teacher = GoldNeighbourTeacher(protos, [[0, 1], [1], [2]], protos, params)
    assert teacher.labels(protos[:1]) == [[0, 1]]  # the labeller's second unit votes 1/2 >= 0.4 of the first
    allowed = np.array([[False, True, True]])
    assert teacher.labels(protos[:1], allowed)[0][0] == 1


def test_teacher_examples_label_non_science_subjects_non_scientific_and_skip_unknown_subjects() -> None:
    items = [it for it in corpus_items(1) if it.subject in ("virology", "philosophy")]
    items.append(corpus_items(1)[0].__class__(**{**corpus_items(1)[0].__dict__, "id": "x", "subject": "unknown"}))
    protos = _unit_vectors(6)
    vectors = np.tile(protos[1], (len(items), 1))
    teacher = GoldNeighbourTeacher(protos[1:2], [[1]], protos)
    scientific = np.array([u.name != "Non-Scientific" for u in CATALOG.units])
    examples = teacher_examples(items, vectors, teacher, [u.id for u in CATALOG.units], scientific, "ku_6")
    by_subject = {ex.subject: ex.unit_ids for ex in examples}
    assert by_subject["virology"] == ("ku_2",) and by_subject["philosophy"] == ("ku_6",)
    assert "unknown" not in by_subject


def test_training_with_gold_items_never_trains_on_the_items_that_measure_it(tmp_path) -> None:
    from scicustom.adapters.tagger_artifact_store import TaggerArtifactStore

    inputs = with_gold(tiny_inputs())
    gold = inputs.gold
    checks = {g.item.id for g in gold if g.split != "train"}
    assert not checks & {it.id for it in inputs.without_gold_checks().items}
    result = train(inputs, tiny_trainer(), TaggerArtifactStore(tmp_path), TINY_PLAN, TINY_CONFIG)
    assert result.examples["train_gold:mmlu"] > 0 and any(k.startswith("train_teacher") for k in result.examples)
    real = result.evaluation["real_gold"]
    assert set(real) == {"dev", "heldout"}
    assert set(real["heldout"]) == {"trained", "zeroshot", "zeroshot_keywords"}
    assert real["heldout"]["trained"]["items"] == sum(g.split == "heldout" for g in gold)


def test_the_packaged_gold_set_parses_and_keeps_its_splits_apart() -> None:
    from scicustom.config import Settings

    catalog = UnitCatalog.from_file(Settings().units_file, "units")
    gold = packaged_gold_items(catalog)
    by_split = {s: {g.item.id for g in gold if g.split == s} for s in ("train", "dev", "heldout")}
    assert len(by_split["heldout"]) >= 150 and len(by_split["dev"]) + len(by_split["heldout"]) >= 500
    assert not (by_split["train"] & by_split["heldout"]) and not (by_split["dev"] & by_split["heldout"])
    assert not (by_split["train"] & by_split["dev"])  # dev calibrates: a trained-on item would flatter it
