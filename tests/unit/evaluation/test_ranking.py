from __future__ import annotations

import json
from pathlib import Path

import pytest

from scicustom.cli import main
from scicustom.core.errors import InvalidInput
from scicustom.core.evaluation.ranking import compare_rankings, ranking_document, read_ranking


def test_one_swapped_pair_of_four() -> None:
    a = {"m1": 0.9, "m2": 0.8, "m3": 0.7, "m4": 0.6}
    b = {"m1": 0.5, "m2": 0.6, "m3": 0.4, "m4": 0.3}
    agreement = compare_rankings(a, b)
    # d = (1, -1, 0, 0): rho = 1 - 6*2 / (4*15) = .8; t = .8*sqrt(2/.36), df 2 -> p = 1 - .8 = .2.
    assert agreement.spearman == pytest.approx(0.8)
    assert agreement.spearman_p == pytest.approx(0.2)
    # 5 concordant, 1 discordant of 6 pairs: tau = 4/6; exact p = 2 * 4/24 (permutations with <= 1 inversion).
    assert agreement.kendall_tau_b == pytest.approx(2 / 3)
    assert agreement.kendall_p == pytest.approx(1 / 3)
    assert (agreement.top1_a, agreement.top1_b, agreement.top1_agree) == (("m1",), ("m2",), False)


def test_ties_use_average_ranks_and_tau_b() -> None:
    a = {"x": 1.0, "y": 1.0, "z": 0.0}
    b = {"x": 1.0, "y": 0.0, "z": 0.0}
    agreement = compare_rankings(a, b)
    # Average ranks (2.5, 2.5, 1) vs (3, 1.5, 1.5): Pearson .75 / 1.5 = .5.
    assert agreement.spearman == pytest.approx(0.5)
    # One concordant pair, no discordant; tau-b = 1 / sqrt((3 - 1)(3 - 1)) = .5.
    assert agreement.kendall_tau_b == pytest.approx(0.5)
    assert agreement.top1_a == ("x", "y") and agreement.top1_b == ("x",) and not agreement.top1_agree


def test_identical_and_reversed_rankings_over_common_models_only() -> None:
    a = {"m1": 3, "m2": 2, "m3": 1, "only_a": 9}
    assert compare_rankings(a, {"m1": 30, "m2": 20, "m3": 10}).spearman == pytest.approx(1.0)
    reverse = compare_rankings(a, {"m1": 1, "m2": 2, "m3": 3, "only_b": 0})
    assert reverse.spearman == pytest.approx(-1.0) and reverse.kendall_tau_b == pytest.approx(-1.0)
    assert reverse.models == ("m1", "m2", "m3")
    assert (reverse.only_in_a, reverse.only_in_b) == (("only_a",), ("only_b",))
    same = compare_rankings(a, {"m1": 30, "m2": 20, "m3": 10})
    assert same.top1_agree and same.top1_a == ("m1",)


def test_constant_scores_give_undefined_correlation_not_nan() -> None:
    agreement = compare_rankings({"a": 0.5, "b": 0.5}, {"a": 0.1, "b": 0.2})
    assert agreement.spearman is None and agreement.kendall_tau_b is None
    record = agreement.to_record()
    assert record["spearman"] == {"rho": None, "p_value": None}
    json.dumps(record, allow_nan=False)


def test_fewer_than_two_common_models_is_invalid() -> None:
    with pytest.raises(InvalidInput, match="at least 2 models in common, found 1 \\(a\\)"):
        compare_rankings({"a": 1, "b": 2}, {"a": 1, "c": 2})


def test_ranking_document_orders_by_score_and_shares_tied_ranks() -> None:
    document = ranking_document({"b": 0.5, "a": 0.5, "c": 0.9, "d": 0.1}, benchmark_sha256="h")
    assert document["benchmark_sha256"] == "h"
    assert [(e["rank"], e["model"]) for e in document["ranking"]] == [(1, "c"), (2, "a"), (2, "b"), (4, "d")]
    assert read_ranking(document, "x") == {"c": 0.9, "a": 0.5, "b": 0.5, "d": 0.1}


def test_reads_results_files_and_plain_mappings() -> None:
    results = {"models": {"m1": {"accuracy": 0.7}, "m2": {"accuracy": 0.4}}}
    assert read_ranking(results, "r") == {"m1": 0.7, "m2": 0.4}
    assert read_ranking({"m1": 1, "m2": 0.5}, "p") == {"m1": 1.0, "m2": 0.5}


@pytest.mark.parametrize("document", [[1, 2], {"m": "high"}, {"m": True}, {"m": float("nan")},
                                      {"ranking": [{"model": "m"}]}])
def test_bad_ranking_documents_are_invalid(document: object) -> None:
    with pytest.raises(InvalidInput):
        read_ranking(document, "bad.json")


def _write(path: Path, document: object) -> Path:
    path.write_text(json.dumps(document))
    return path


def test_compare_command_reports_the_statistics(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = _write(tmp_path / "a.json", ranking_document({"m1": 0.9, "m2": 0.8, "m3": 0.7, "m4": 0.6}))
    b = _write(tmp_path / "b.json", {"m1": 0.5, "m2": 0.6, "m3": 0.4, "m4": 0.3, "m5": 0.1})
    out = tmp_path / "report.json"
    assert main(["compare", "--rankings", str(a), str(b), "--out", str(out)]) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed == json.loads(out.read_text())
    assert printed["n_common"] == 4 and printed["only_in_b"] == ["m5"]
    assert printed["spearman"]["rho"] == pytest.approx(0.8)
    assert printed["kendall_tau_b"]["tau"] == pytest.approx(2 / 3)
    assert printed["top1"] == {"a": ["m1"], "b": ["m2"], "agree": False}


def test_compare_command_exits_2_with_fewer_than_two_common_models(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    a = _write(tmp_path / "a.json", {"m1": 0.9, "m2": 0.8})
    b = _write(tmp_path / "b.json", {"m1": 0.5, "m3": 0.6})
    assert main(["compare", "--rankings", str(a), str(b)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == "scicustom: error: rankings: need at least 2 models in common, found 1 (m1)"


def test_compare_command_exits_2_on_a_missing_file(tmp_path: Path,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    a = _write(tmp_path / "a.json", {"m1": 0.9, "m2": 0.8})
    assert main(["compare", "--rankings", str(a), str(tmp_path / "nope.json")]) == 2
    assert "cannot read" in capsys.readouterr().err
