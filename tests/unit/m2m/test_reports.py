"""Error taxonomy, weight sensitivity, reference-based metrics and the gaming attacks."""

from __future__ import annotations

import random

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from nltk.translate.bleu_score import SmoothingFunction
from nltk.translate.bleu_score import sentence_bleu as nltk_sentence_bleu

from scicustom.core.m2m.gaming_attacks import ATTACKS, attack_records, gaming_report
from scicustom.core.m2m.reference_metrics import reference_metrics_report
from scicustom.core.m2m.scoring import ScoredRow, score_records
from scicustom.core.m2m.sensitivity import sensitivity_report, weighted_cbs
from scicustom.core.m2m.taxonomy import row_errors, taxonomy_report
from scicustom.core.text_overlap import bleu, lcs_length, rouge_l
from tests.unit.m2m.conftest import csv_records
from tests.unit.m2m.synthetic_rows import synthetic_rows


def scored(pid: str, cbs: float = 0.5, **aggregates: float | None) -> ScoredRow:
    base = {"rcf": 0.5, "hpa": 0.2, "msi": 0.2, "sns": 0.7, "ip": 0.5, "pdq": 0.5}
    return ScoredRow(pid, {**base, **aggregates}, cbs)


@pytest.mark.parametrize(("aggregates", "expected"), [
    ({}, []),
    ({"hpa": 0.3, "msi": 0.1}, ["high_alignment_weak_mechanism"]),
    ({"hpa": 0.25, "msi": 0.1}, []),  # thresholds are strict
    ({"sns": 0.8, "ip": 0.3}, ["novel_but_implausible"]),
    ({"rcf": 0.7, "pdq": 0.4, "hpa": 0.05}, ["verbose_weak_decomposition", "fluent_but_misaligned"]),
    ({"msi": 0.3, "sns": 0.6}, ["specific_but_not_novel"]),
    ({"ip": 0.6, "hpa": 0.05}, ["plausible_wrong_target"]),
    ({"msi": 0.3, "sns": None}, []),  # sns not computed: rules that read it do not fire
])
def test_taxonomy_rules(aggregates: dict[str, float | None], expected: list[str]) -> None:
    assert row_errors(scored("p", **aggregates)) == expected


def test_taxonomy_rates_per_system() -> None:
    rows = [scored("a", hpa=0.3, msi=0.1), scored("b"), scored("c", hpa=0.3, msi=0.1), scored("d")]
    report = taxonomy_report(rows, ["x", "x", "y", "y"])
    entry = report["high_alignment_weak_mechanism"]
    assert entry["overall"] == 0.5 and entry["per_system"] == {"x": 0.5, "y": 0.5}
    assert entry["rule"] == "hpa > 0.25 and msi < 0.15" and entry["in_table4"] is True
    assert report["plausible_wrong_target"]["in_table4"] is False


def test_weighted_cbs_counts_missing_as_zero() -> None:
    row = scored("p", rcf=1.0, hpa=0.0, msi=0.0, sns=None, ip=0.0, pdq=0.0)
    assert weighted_cbs(row.aggregates, (0.2, 0.2, 0.18, 0.15, 0.15, 0.12)) == 0.2
    assert weighted_cbs(row.aggregates, (1 / 6,) * 6) == round(1 / 6 / (6 * (1 / 6)), 4)


def test_sensitivity_system_ranking() -> None:
    # s1 best everywhere; s2 has rcf 0.9 and no msi, s3 the reverse: only rcf_heavy prefers s2.
    rows = [scored("1", rcf=0.9, hpa=0.9, msi=0.9, sns=0.9, ip=0.9, pdq=0.9),
            scored("2", rcf=0.9, hpa=0.6, msi=0.0, sns=0.6, ip=0.6, pdq=0.6),
            scored("3", rcf=0.5, hpa=0.5, msi=0.9, sns=0.5, ip=0.5, pdq=0.5)]
    report = sensitivity_report(rows, ["s1", "s2", "s3"])
    assert report["rankings"]["default"] == ["s1", "s3", "s2"]
    assert report["rankings"]["rcf_heavy"] == ["s1", "s2", "s3"]
    assert report["kendall_tau_vs_default"]["msi_heavy"]["tau"] == 1.0
    assert report["kendall_tau_vs_default"]["rcf_heavy"]["tau"] == round(1 / 3, 4)  # 2 of 3 pairs concordant
    assert report["table"]["s2"]["uniform"] == 0.55  # (0.9 + 4 x 0.6) / 6


tokens = st.lists(st.sampled_from(["the", "sei", "layer", "grows", ".", "fast", "li", "a"]), max_size=14)


@settings(max_examples=150, deadline=None)
@given(tokens, tokens)
def test_bleu_matches_nltk_method1(reference: list[str], hypothesis: list[str]) -> None:
    ours = bleu(" ".join(hypothesis), " ".join(reference), variant="nltk-m2m")  # re-tokenised unchanged
    expected = (nltk_sentence_bleu([reference], hypothesis, smoothing_function=SmoothingFunction().method1)
                if hypothesis and reference else 0.0)
    assert ours == pytest.approx(float(expected), rel=1e-12, abs=1e-15)


def test_rouge_l_by_hand() -> None:
    assert lcs_length(["a", "b", "c", "d"], ["a", "c", "x", "d"]) == 3
    # stems: "coatings" -> "coat", "improved" -> "improv"; LCS of [coat, improv, capac] and
    # [the, coat, improv, stabil] is 2: P = 2/4, R = 2/3, F = 2PR / (P + R) = 4/7
    score = rouge_l("The coating improved stability", "Coatings improved capacity", stemmed=True)
    assert score.fmeasure == pytest.approx(4 / 7)
    assert rouge_l("anything", "", stemmed=True).fmeasure == 0.0


class HashEmbedder:
    """Deterministic stand-in for MiniLM: one-hot of the first word, normalised."""

    name = "hash"

    def encode(self, texts):  # type: ignore[no-untyped-def]
        vectors = np.zeros((len(texts), 8), dtype=np.float32)
        for i, text in enumerate(texts):
            vectors[i, sum(map(ord, text.split()[0] if text.split() else "")) % 8] = 1.0
        return vectors


def test_reference_report_with_systems() -> None:
    report = reference_metrics_report(
        ["p1", "p2", "p3", "p1", "p2", "p3"],
        ["sei layer grows", "sei layer grows fast", "li plating", "random words", "nothing here", "other"],
        ["sei layer grows", "sei layer grows", "li plating", "sei layer grows", "sei layer grows", "li plating"],
        [0.6, 0.6, 0.6, 0.3, 0.3, 0.3], HashEmbedder(), ["good", "good", "good", "bad", "bad", "bad"])
    assert report["system_means"]["good"]["bleu"] > report["system_means"]["bad"]["bleu"]
    assert report["rankings"]["cosine"][0] == "good"
    assert report["rows"]["p1"]["cosine"] in (0.0, 1.0)
    assert "kendall_tau_vs_cbs" in report


def test_attack_generators_are_deterministic_and_keep_the_problem(vocabulary) -> None:
    records = csv_records(synthetic_rows(6, seed=5), vocabulary)
    for style in ATTACKS:
        once = attack_records(records, style, vocabulary, seed=1)
        again = attack_records(records, style, vocabulary, seed=1)
        assert once == again
        assert once.text("problem_statement") == records.text("problem_statement")
        assert once.text("hypothesis") != records.text("hypothesis")
    mirrored = attack_records(records, "problem_mirroring", vocabulary, seed=1)
    failure = records.text("failure_mode_or_limitation")[0] or "the stated limitation"
    assert failure in mirrored.text("hypothesis")[0]
    verbose = attack_records(records, "verbose_fake_reasoning", vocabulary, seed=1)
    assert verbose.text("reasoning_process")[0].count("[Begin Step") == 5


def test_gaming_report_deltas(vocabulary) -> None:
    records = csv_records(synthetic_rows(30, seed=9), vocabulary)
    rows = score_records(records, vocabulary)
    report = gaming_report(records, rows, vocabulary, sample=10, seed=3)
    assert report["sampled_rows"] == 10
    deltas = report["delta_vs_original"]
    assert all(d["sns"] == 0.0 for d in deltas.values())  # attacked rows keep the original sns
    assert deltas["problem_mirroring"]["hpa"] > 0  # mirroring the problem raises alignment
    assert deltas["jargon_stuffing"]["ip"] < 0 and deltas["verbose_fake_reasoning"]["msi"] < 0
    chosen = sorted(random.Random(3).sample(range(30), 10))
    original_cbs = round(sum(rows[i].cbs for i in chosen) / 10, 4)
    assert report["original_means"]["cbs"] == original_cbs


@pytest.mark.slow
def test_cosine_with_the_packaged_minilm() -> None:
    from scicustom.adapters.minilm_embedder import MiniLMEmbedder

    report = reference_metrics_report(
        ["p1", "p2"], ["Fluorination improves lithium diffusion.", "The weather was sunny in Paris."],
        ["Fluorination improves lithium diffusion.", "A fluorinated cathode speeds up Li+ transport."],
        [0.5, 0.4], MiniLMEmbedder())
    assert report["rows"]["p1"]["cosine"] == pytest.approx(1.0, abs=1e-3)
    assert report["rows"]["p2"]["cosine"] < 0.3


TAGGED = ("[HYPOTHESIS] Operando EIS thereby tunes Butler-Volmer tortuosity, resulting in DFT. [/HYPOTHESIS]\n"
          "[INTERVENTION] SEI tuning [/INTERVENTION]\n[MECHANISM] Coulombic efficiency via XRD. [/MECHANISM]\n"
          "[REASONING]\n[Begin Step 1] EIS thereby DFT. [End Step 1]\n[Begin Step 2] XPS thus TEM. [End Step 2]\n"
          "[/REASONING]\n[TARGET_PROPERTY] tortuosity [/TARGET_PROPERTY]\n"
          "[CLAIMED_OUTCOME] Improved Coulombic efficiency. [/CLAIMED_OUTCOME]")


def test_parse_tagged_answer_and_fallback() -> None:
    from scicustom.core.m2m.gaming_attacks import parse_tagged

    fields = parse_tagged(TAGGED)
    assert fields["intervention_or_solution"] == "SEI tuning"
    assert fields["reasoning_process"].count("[Begin Step") == 2
    loose = parse_tagged("Sure.\n\nA generic improvement of the cell will improve everything about it.\n\n"
                         "[Begin Step 1] think [End Step 1]")
    assert loose["hypothesis"].startswith("A generic improvement")
    assert loose["reasoning_process"] == "[Begin Step 1] think [End Step 1]"
    assert loose["mechanism_or_rationale"] == ""


def test_cli_attacks_written_by_an_llm(recorded_llm, tmp_path, monkeypatch) -> None:
    import json

    from scicustom.cli import main
    from tests.unit.m2m.synthetic_rows import rows_to_csv

    monkeypatch.setenv("SCICUSTOM_LLM_CACHE_DIR", str(tmp_path / "llm"))
    monkeypatch.setenv("SCICUSTOM_TEST_LLM_KEY", "test")
    recorded_llm.rules.append(("sounds highly technical", TAGGED))
    recorded_llm.rules.append(("only restates", "[HYPOTHESIS] Capacity fade is reduced. [/HYPOTHESIS]"))
    recorded_llm.default = "Better batteries."  # verbose style: no tags at all
    (tmp_path / "in.csv").write_bytes(rows_to_csv(synthetic_rows(8, seed=2)))
    assert main(["score", "m2m", "--input", str(tmp_path / "in.csv"), "--output", str(tmp_path / "o.json"),
                 "--report", str(tmp_path / "r.json"), "--attacks", "--attack-sample", "3",
                 "--attack-model", "openai/attacker", "--llm-api-base", recorded_llm.api_base,
                 "--llm-api-key-env", "SCICUSTOM_TEST_LLM_KEY"]) == 0
    attacks = json.loads((tmp_path / "r.json").read_text())["attacks"]
    assert attacks["generator"] == "llm:openai/attacker"
    assert attacks["usage"]["calls"] == 9 and len(recorded_llm.calls) == 9
    assert attacks["attack_means"]["jargon_stuffing"]["msi"] > attacks["attack_means"]["verbose_fake_reasoning"]["msi"]
    assert attacks["attack_means"]["verbose_fake_reasoning"]["rcf"] == 0.0  # no steps in the answer
