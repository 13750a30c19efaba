from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scicustom.core.tagger_training.metrics import domain_agreement, fuzzy_f1, fuzzy_match
from scicustom.core.tagger_training.subject_priors import SubjectPrior


def test_fuzzy_match_uses_indel_ratio_85() -> None:
    # ratio("Cell membrane", "Cell membranes") = 2*13/27 = 96.3
    assert fuzzy_match("Cell membrane", "Cell membranes")
    # ratio("Halide", "Organic halide") = 2*5/20 = 50 ("H" vs "h" differ)
    assert not fuzzy_match("Halide", "Organic halide")
    assert fuzzy_match("Optics", "Optics")


def test_hand_computed_micro_and_macro() -> None:
    predicted = [["Optics", "Heart"], ["Virology"], ["Lung"]]
    gold = [["Optics"], ["Virology", "Heart"], ["Liver"]]
    report = fuzzy_f1(predicted, gold)
    # predictions correct: Optics, Virology -> 2 of 4; golds found: Optics, Virology -> 2 of 4
    assert report.micro_precision == pytest.approx(0.5)
    assert report.micro_recall == pytest.approx(0.5)
    assert report.micro_f1 == pytest.approx(0.5)
    # labels: Optics 1, Heart (pred wrong once, gold missed once) 0, Virology 1, Lung 0, Liver 0 -> 2/5
    assert report.macro_f1 == pytest.approx(0.4)
    assert (report.queries, report.gold_tags, report.predicted_tags) == (3, 4, 4)


def test_fuzzy_matching_counts_near_names() -> None:
    report = fuzzy_f1([["Cell membranes"]], [["Cell membrane"]])
    assert report.micro_f1 == 1.0


def test_duplicate_predictions_count_once_and_empty_inputs() -> None:
    assert fuzzy_f1([["Optics", "Optics"]], [["Optics"]]).micro_precision == 1.0
    empty = fuzzy_f1([], [])
    assert empty.micro_f1 == 0.0 and empty.macro_f1 == 0.0
    with pytest.raises(ValueError):
        fuzzy_f1([["a"]], [])


names = st.sampled_from(["Optics", "Heart", "Lung", "Virology", "Alloy", "Cancer"])


@settings(max_examples=100, deadline=None)
@given(gold=st.lists(st.lists(names, min_size=1, max_size=4), min_size=1, max_size=10))
def test_perfect_predictions_score_one_and_scores_are_bounded(gold: list[list[str]]) -> None:
    perfect = fuzzy_f1(gold, gold)
    assert perfect.micro_f1 == pytest.approx(1.0) and perfect.macro_f1 == pytest.approx(1.0)
    shifted = fuzzy_f1([g[:1] for g in gold], gold)
    assert 0.0 <= shifted.macro_f1 <= 1.0 and 0.0 < shifted.micro_f1 <= 1.0
    assert shifted.micro_precision == pytest.approx(1.0)


def test_domain_agreement() -> None:
    life = SubjectPrior(frozenset({"biology", "medicine"}))
    non = SubjectPrior(frozenset({"non-scientific"}))
    assert domain_agreement(["biology", "chemistry", "non-scientific"], [life, life, non]) == pytest.approx(2 / 3)
    assert domain_agreement([], []) == 0.0
