"""The metric formulas on hand-computed rows and their edge cases."""

from __future__ import annotations

import pytest

from scicustom.core.m2m.scoring import ScoredRow, score_records
from scicustom.core.m2m.scoring_options import PARITY, ScoringOptions
from tests.unit.m2m.conftest import csv_records

BASE = {
    "paper_id": "p1",
    "problem_statement": "Capacity fade of the cathode",
    "problem_core": "",
    "hypothesis": "Coating thus improves capacity.",
    "reasoning_process": "[Begin Step 1] coating reduces loss [End Step 1]\n"
                         "[Begin Step 2] coating improves capacity [End Step 2]",
    "mechanism_or_rationale": "",
    "intervention_or_solution": "",
    "claimed_outcome": "",
    "target_property": "",
    "battery_system": "LFP",
    "component": "",
    "failure_mode_or_limitation": "",
    "evidence_strength": "",
    "problem_type_broad": "",
    "problem_type_fine": "",
}


def score_one(vocabulary, options: ScoringOptions = PARITY, **fields: str) -> ScoredRow:
    return score_records(csv_records([{**BASE, **fields}], vocabulary,
                                     missing_as_empty=options.missing_as_empty), vocabulary, options)[0]


def test_rcf_two_steps_by_hand(vocabulary) -> None:
    row = score_one(vocabulary)
    # J(step1, step2) = |{coating}| / |{coating, reduces, loss, improves, capacity}| = 0.2
    assert row.sub["rcf_progression"] == round(1 - abs(0.2 - 0.25) / 0.75, 4) == 0.9333
    # J(step2, hypothesis) = |{coating, improves, capacity}| / |{coating, thus, improves, capacity}|
    assert row.sub["rcf_convergence"] == 0.75
    assert row.sub["rcf_nonredundancy"] == 0.8
    # 3 words per step: min(sigmoid(0.05 (3 - 40)), 1 - sigmoid(0.02 (3 - 150))) = 0.135873
    assert row.sub["rcf_density"] == 0.1359
    assert row.aggregates["rcf"] == 0.7254  # 0.3 * 0.93333 + 0.3 * 0.75 + 0.25 * 0.8 + 0.15 * 0.135873
    assert row.sub["rcf_num_steps"] == 2


def test_rcf_without_steps_scores_zero(vocabulary) -> None:
    row = score_one(vocabulary, reasoning_process="First we coat, then we cycle; no step tags here.")
    assert row.aggregates["rcf"] == 0.0
    assert [row.sub[k] for k in ("rcf_progression", "rcf_convergence", "rcf_nonredundancy", "rcf_density",
                                 "rcf_num_steps")] == [0.0, 0.0, 0.0, 0.0, 0]


def test_rcf_one_step_is_neutral(vocabulary) -> None:
    row = score_one(vocabulary, reasoning_process="[Begin Step 1] coating improves capacity [End Step 1]",
                    num_reasoning_steps="5")
    assert row.sub["rcf_progression"] == 0.5
    assert row.sub["rcf_nonredundancy"] == 1.0
    assert row.sub["rcf_num_steps"] == 1  # num_reasoning_steps is ignored


def test_rcf_steps_span_lines_and_empty_steps_are_dropped(vocabulary) -> None:
    row = score_one(vocabulary, reasoning_process="[Begin Step 1] coating\nimproves [End Step 1]"
                                                  "[Begin Step 2]   [End Step 2]")
    assert row.sub["rcf_num_steps"] == 1
    assert row.sub["rcf_convergence"] == 0.5  # {coating, improves} vs the 4 hypothesis tokens


def test_hpa_defaults_and_the_nan_target(vocabulary) -> None:
    row = score_one(vocabulary)
    scope = 1 / 8  # {capacity} over 8 distinct tokens of problem and hypothesis
    assert row.sub["hpa_scope_coverage"] == round(scope, 4)
    assert row.sub["hpa_failure_addressal"] == 0.1  # empty failure mode: 0.8 x scope
    assert row.sub["hpa_target_coverage"] == 0.0  # the empty target reached the metric as "nan"
    assert row.sub["hpa_causal_language"] == 0.25  # "thus"
    assert row.sub["hpa_intervention_coherence"] == 0.3
    corrected = score_one(vocabulary, ScoringOptions(missing_as_empty=True))
    assert corrected.sub["hpa_target_coverage"] == 0.5


def test_hpa_connector_wildcard_stops_at_newline(vocabulary) -> None:
    same_line = score_one(vocabulary, hypothesis="Made by increasing porosity")
    across = score_one(vocabulary, hypothesis="Made by\nincreasing porosity")
    assert same_line.sub["hpa_causal_language"] == 0.25
    assert across.sub["hpa_causal_language"] == 0.0


def test_msi_terms_match_as_substrings_unless_word_bounded(vocabulary) -> None:
    text = dict(hypothesis="The system works", mechanism_or_rationale="", reasoning_process="")
    parity = score_one(vocabulary, **text)
    bounded = score_one(vocabulary, ScoringOptions(word_bounded_terms=True), **text)
    assert parity.sub["msi_high_kw_count"] == 1  # "tem" (TEM) inside "system"
    assert parity.sub["msi_characterization"] == 0.25
    assert bounded.sub["msi_high_kw_count"] == 0
    assert bounded.sub["msi_characterization"] == 0.0


def test_msi_by_hand(vocabulary) -> None:
    row = score_one(vocabulary, hypothesis="Doping improves the anode",
                    mechanism_or_rationale="Dendrite growth is suppressed at 25 °C and 4.2 V with 10 nm pores "
                                           "seen by XRD and SEM of the interface after 80 % retention of charge",
                    reasoning_process="")
    # high: dendrite, xrd; medium: doping, anode, interface; low: improve
    assert (row.sub["msi_high_kw_count"], row.sub["msi_medium_kw_count"]) == (2, 3)
    assert row.sub["msi_vocab_tier"] == round(min(1.0, (3 * 2 + 1.5 * 3 + 0.5 * 1) / 181.5 * 3), 4) == 0.1818
    assert row.sub["msi_quantitative"] == 0.8  # nm, °c, v, % : 4 of the 10 patterns
    assert row.sub["msi_characterization"] == 0.5  # xrd, sem
    assert row.sub["msi_mechanism_depth"] == 1.0  # 26 mechanism words >= 3 x (4 + 1)


@pytest.mark.parametrize(("unit", "parity", "corrected"), [
    ("5 µm", 0.2, 0.2),    # micro sign U+00B5, as the pattern spells it
    ("5 μm", 0.0, 0.2),    # Greek mu U+03BC
    ("25 ℃", 0.0, 0.2),    # degree Celsius sign U+2103
    ("25 °C", 0.2, 0.2),
    ("3 × 10-4", 0.2, 0.2),
    ("3 × 10⁻⁴", 0.0, 0.0),  # a superscript exponent digit is not a \\d (category No, not Nd)
])
def test_unicode_units(vocabulary, unit: str, parity: float, corrected: float) -> None:
    fields = dict(hypothesis=f"Pores of {unit}", mechanism_or_rationale="", reasoning_process="")
    assert score_one(vocabulary, **fields).sub["msi_quantitative"] == parity
    assert score_one(vocabulary, ScoringOptions(unicode_units=True), **fields).sub["msi_quantitative"] == corrected


def test_ip_by_hand(vocabulary) -> None:
    row = score_one(vocabulary, battery_system="NMC811 pouch cell", evidence_strength="Moderate to strong",
                    intervention_or_solution="A simple scalable spray coat of layered oxide on Ni-rich NMC",
                    mechanism_or_rationale="", hypothesis="It is low-cost.",
                    claimed_outcome="Capacity retention rises by 12 % after cycling")
    assert row.sub["ip_consistency"] == 1.0  # more than 5 words
    # nmc family: li? no; ni, mn? no; co (in "coat"), oxide, layered, ni -> 4 hits
    assert row.sub["ip_material_compatibility"] == 0.9
    # scalable terms: simple, scalable, spray coat, low-cost -> min(1, 0.3 + 0.6)
    assert row.sub["ip_scalability"] == 0.9
    assert row.sub["ip_evidence_grounding"] == 1.0  # "strong" comes first in the map order
    assert row.sub["ip_outcome_specificity"] == 0.8


def test_ip_defaults_and_penalty(vocabulary) -> None:
    row = score_one(vocabulary, battery_system="zinc-ion", evidence_strength="",
                    intervention_or_solution="atomic layer deposition", claimed_outcome="better")
    assert row.sub["ip_consistency"] == 0.4
    assert row.sub["ip_material_compatibility"] == 0.5
    assert row.sub["ip_scalability"] == 0.1  # 0.3 - 0.2
    assert row.sub["ip_evidence_grounding"] == 0.35
    assert row.sub["ip_outcome_specificity"] == 0.3


def test_pdq_empty_core_is_the_word_nan_under_parity(vocabulary) -> None:
    fields = dict(problem_statement="one two three four five", problem_core="")
    assert score_one(vocabulary, **fields).sub["pdq_core_specificity"] == 1.0  # "nan": 1 / (5 + 1)
    corrected = score_one(vocabulary, ScoringOptions(missing_as_empty=True), **fields)
    assert corrected.sub["pdq_core_specificity"] == 0.3  # 0 words


@pytest.mark.parametrize(("core_words", "expected"), [(0, 0.3), (1, 0.3), (2, 0.7), (4, 0.7), (5, 1.0),
                                                      (13, 1.0), (14, 0.7), (21, 0.7), (22, 0.4)])
def test_pdq_core_ratio_thresholds(vocabulary, core_words: int, expected: float) -> None:
    # problem of 26 words: ratio = core / 27
    row = score_one(vocabulary, ScoringOptions(missing_as_empty=True),
                    problem_statement=" ".join(["word"] * 26), problem_core=" ".join(["core"] * core_words))
    assert row.sub["pdq_core_specificity"] == expected


def test_pdq_by_hand(vocabulary) -> None:
    row = score_one(vocabulary, failure_mode_or_limitation="Poor dendrite growth and SEI formation issue",
                    component="cathode particle", problem_type_broad="Thermal management and safety",
                    problem_type_fine="thermal runaway")
    # specific: dendrite, sei formation; vague: poor, issue -> 0.3 + 0.4 - 0.2
    assert row.sub["pdq_failure_specificity"] == 0.5
    assert row.sub["pdq_type_consistency"] == 0.2  # J = 1/5 ({thermal} of 5 tokens), floor 0.2
    assert row.sub["pdq_component_granularity"] == 1.0  # 2 x 0.4 + 0.2


def test_sns_small_set_by_hand(vocabulary) -> None:
    rows = [{**BASE, "paper_id": "a", "hypothesis": "silicon anode coating", "battery_system": "Si"},
            {**BASE, "paper_id": "b", "hypothesis": "silicon anode coating", "battery_system": "Si"},
            {**BASE, "paper_id": "c", "hypothesis": "sulfide electrolyte", "battery_system": "SSB"}]
    scored = score_records(csv_records(rows, vocabulary), vocabulary)
    a, _, c = scored
    # a and b are identical: top-5 over 3 rows is the whole row [-1 -> 0, 0, 1] -> mean 1/3
    assert a.sub["sns_corpus_novelty"] == round(1 - 1 / 3, 4)
    assert c.sub["sns_corpus_novelty"] == 1.0
    assert a.sub["sns_within_system_novelty"] == 0.5  # group {a, b}: row [-1 -> 0, 1], mean 1/2
    assert c.sub["sns_within_system_novelty"] == 1.0  # singleton group
    assert a.sub["sns_intervention_novelty"] == 1.0  # empty interventions: no terms, similarity 0
    assert a.sub["sns_cross_domain_bonus"] == 0.0
    assert a.aggregates["sns"] == round(0.4 * (2 / 3) + 0.25 * 0.5 + 0.2 * 1.0, 4)


def test_sns_within_group_by_and_small_groups(vocabulary) -> None:
    rows = [{**BASE, "paper_id": f"p{i}", "hypothesis": f"silicon anode coating {word}", "_system": system}
            for i, (word, system) in enumerate([("alpha", "A")] * 5 + [("beta", "B")] * 2)]
    scored = score_records(csv_records(rows, vocabulary), vocabulary, group_by="_system")
    assert all(r.aggregates["sns"] is not None for r in scored[:5])
    assert all(r.aggregates["sns"] is None for r in scored[5:])  # a group of 2 < 5 rows gets no sns
    small = scored[5]
    weights = {"rcf": 0.2, "hpa": 0.2, "msi": 0.18, "ip": 0.15, "pdq": 0.12}
    expected = sum(w * small.aggregates[m] for m, w in weights.items()) / sum(weights.values())
    assert small.cbs == pytest.approx(round(expected, 4), abs=1e-4)


def test_cbs_from_rounded_aggregates(vocabulary) -> None:
    row = score_one(vocabulary)
    a = row.aggregates
    total = 0.2 * a["rcf"] + 0.2 * a["hpa"] + 0.18 * a["msi"] + 0.15 * a["sns"] + 0.15 * a["ip"] + 0.12 * a["pdq"]
    assert row.cbs == round(total / 1.0, 4)


def test_unicode_text_is_tokenised_like_python_re(vocabulary) -> None:
    row = score_one(vocabulary, hypothesis="Ünïcode électrolyte naïve", problem_statement="ÉLECTROLYTE naïve")
    # tokens {ünïcode, électrolyte, naïve} and {électrolyte, naïve}: 2 / 3
    assert row.sub["hpa_scope_coverage"] == 0.6667


def test_tfidf_vocabulary_ties(vocabulary) -> None:
    import dataclasses
    from collections import Counter

    from scicustom.core.m2m.sns import tfidf_matrix

    small = dataclasses.replace(vocabulary, tfidf_max_vocab=2)
    texts = ["gamma beta alpha", "delta"]
    # Parity: ties keep Counter.most_common order over per-document sets, as the reference builds it.
    counts: Counter[str] = Counter()
    for text in texts:
        counts.update(set(text.split()))
    kept = [t for t, _ in counts.most_common(2)]
    parity = tfidf_matrix(texts, small, stable=False)
    stable = tfidf_matrix(texts, small, stable=True)  # alpha, beta: alphabetical among equal frequencies
    assert parity.shape == stable.shape == (2, 2)
    assert stable[1].tolist() == [0.0, 0.0]  # "delta" is not among the 2 kept terms
    assert bool((parity[1] > 0).any()) == ("delta" in kept)
    assert int((parity[0] > 0).sum()) == len([t for t in kept if t != "delta"])
    assert stable[0].tolist() == pytest.approx([2 ** -0.5, 2 ** -0.5])
