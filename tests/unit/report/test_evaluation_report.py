"""The evaluation report and the per-unit accuracy behind it."""

from __future__ import annotations

import pytest

from scicustom.app.report.evaluation_report import render_evaluation_report
from scicustom.core.evaluation.ranking import compare_rankings
from scicustom.core.evaluation.unit_breakdown import NO_UNIT, item_units, unit_accuracy, wilson_interval
from tests.unit.report.synthetic_build import HOSTILE, evaluation


def test_wilson_interval_matches_the_closed_form() -> None:
    assert wilson_interval(5, 10) == pytest.approx((0.2366, 0.7634), abs=1e-4)
    assert wilson_interval(0, 4) == pytest.approx((0.0, 0.4899), abs=1e-4)
    assert wilson_interval(4, 4) == pytest.approx((0.5101, 1.0), abs=1e-4)
    with pytest.raises(ValueError):
        wilson_interval(0, 0)


def test_units_come_from_provenance_and_a_failed_item_counts_wrong() -> None:
    units = item_units([{"id": "a", "provenance": {"units": ["X", "Y", "X"]}}, {"id": "b", "provenance": {}},
                        {"id": "c"}])
    assert units == {"a": ("X", "Y"), "b": (NO_UNIT,), "c": (NO_UNIT,)}
    rows = unit_accuracy({"a": ("X",), "b": ("X", "Y"), "c": ("Y",)}, {"a": True, "b": True})
    assert [(r.unit, r.n, r.n_correct) for r in rows] == [("X", 2, 2), ("Y", 2, 1)]  # c has no outcome
    assert rows[1].accuracy == 0.5 and rows[1].to_record()["ci95_wilson"]["low"] == pytest.approx(0.0945, abs=1e-4)


def test_the_report_has_accuracy_units_and_reference_agreement() -> None:
    reference = {"judge-a": 0.9, "judge-b": 0.6, "judge-c": 0.3}
    report = render_evaluation_report(evaluation(reference))
    assert render_evaluation_report(evaluation(reference)) == report  # deterministic
    for section in ("accuracy", "units", "reference", "settings"):
        assert f'<section id="{section}">' in report, section
    for chart in ("chart-accuracy", "chart-units", "chart-reference"):
        assert f'<div id="{chart}" class="plotly-graph-div"' in report, chart
    agreement = compare_rankings(reference, {"judge-a": 0.75, "judge-b": 0.5})
    assert agreement.spearman == 1.0
    assert "<dt>Spearman rho</dt><dd>1</dd>" in report and "<dt>Kendall tau-b</dt><dd>1</dd>" in report
    assert "<dt>only in the reference</dt><dd>judge-c</dd>" in report
    # Immune system: judge-a 2 of 2; judge-b answered q1 right and failed q3 (counted wrong).
    assert "<td>Immune system</td><td class=\"num\">2</td><td>100.0% [34.2%, 100.0%]</td>" \
           "<td>50.0% [9.5%, 90.5%]</td>" in report
    assert "paired percentile bootstrap over items (200 resamples, seed 3)" in report


def test_without_a_reference_and_with_hostile_model_names() -> None:
    report = render_evaluation_report(evaluation(hostile=True))
    assert '<section id="reference">' not in report
    assert HOSTILE not in report and "&lt;script&gt;window.__pwned = 1&lt;/script&gt;" in report


def test_tied_scores_leave_the_correlation_undefined() -> None:
    report = render_evaluation_report(evaluation({"judge-a": 0.5, "judge-b": 0.5}))
    assert "the correlations are undefined" in report and "<dt>Spearman rho</dt><dd>–</dd>" in report
