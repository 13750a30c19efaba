"""The evaluation report (`scicustom evaluate ... --report FILE`): accuracy per model with its 95%
interval, accuracy per knowledge unit, and the rank correlation with a reference ranking.

The whole-benchmark intervals are evaluate's paired percentile bootstrap (fixed seed, in
results.json); per-unit intervals are Wilson score intervals (core/evaluation/unit_breakdown.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from scicustom.app.report.charts import BLUE, ORANGE, chart, label
from scicustom.app.report.html_page import Markup, Section, element, join, note, page, pairs, plain, table
from scicustom.core.evaluation.ranking import compare_rankings, ranking_document
from scicustom.core.evaluation.unit_breakdown import unit_accuracy, unit_order


@dataclass(frozen=True)
class EvaluationReport:
    results: Mapping[str, Any]                    # the results.json document of `scicustom evaluate`
    outcomes: Mapping[str, Mapping[str, bool]]    # model -> item id -> answered correctly
    item_units: Mapping[str, Sequence[str]]       # every benchmark item's knowledge units
    reference: Mapping[str, float] | None = None  # model -> score of a reference ranking
    reference_label: str = ""


def render_evaluation_report(report: EvaluationReport) -> str:
    models = report.results.get("models", {})
    benchmark = report.results.get("benchmark", {})
    ranking = ranking_document({name: r["accuracy"] for name, r in models.items()})["ranking"]
    sections = [_accuracy(report, ranking), _units(report, [e["model"] for e in ranking])]
    if report.reference is not None:
        sections.append(_reference(report))
    sections.append(Section("settings", "Benchmark and settings", pairs([
        ("benchmark", benchmark.get("path")), ("sha256", benchmark.get("sha256")), ("items", benchmark.get("n_items")),
        *((f"bootstrap {k}", v) for k, v in sorted(report.results.get("bootstrap", {}).items())),
        ("tokens", report.results.get("totals", {}).get("tokens")),
        ("cost (USD)", report.results.get("totals", {}).get("cost_usd")),
    ])))
    return page("SciCustom evaluation report", f"{len(models)} models on {plain(benchmark.get('n_items'))} questions "
                f"of {plain(benchmark.get('path'))}", sections)


def _accuracy(report: EvaluationReport, ranking: Sequence[Mapping[str, Any]]) -> Section:
    models = report.results.get("models", {})
    names = [e["model"] for e in ranking]
    bootstrap = report.results.get("bootstrap", {})
    data = [{
        "type": "bar", "x": [label(n) for n in names], "y": [models[n]["accuracy"] for n in names],
        "marker": {"color": BLUE}, "name": "accuracy",
        "error_y": {"type": "data", "symmetric": False,
                    "array": [round(models[n]["ci95"]["high"] - models[n]["accuracy"], 6) for n in names],
                    "arrayminus": [round(models[n]["accuracy"] - models[n]["ci95"]["low"], 6) for n in names]},
        "hovertemplate": "%{x}: %{y:.1%}<extra></extra>"}]
    figure = chart("chart-accuracy", "Accuracy per model with its 95% interval", data, {
        "yaxis": {"range": [0, 1.05], "tickformat": ".0%"}}, height=380,
        caption=f"Intervals: paired percentile bootstrap over items ({plain(bootstrap.get('resamples'))} "
                f"resamples, seed {plain(bootstrap.get('seed'))}); unparsed answers and failed calls count as wrong.")
    rows = []
    for entry in ranking:
        r = models[entry["model"]]
        rows.append([entry["rank"], entry["model"], r.get("model"), r["accuracy"], r["ci95"]["low"], r["ci95"]["high"],
                     r.get("n"), r.get("n_correct"), r.get("n_unparsed"), r.get("n_errors"),
                     r.get("tokens", {}).get("total"), r.get("cost_usd")])
    return Section("accuracy", "Accuracy per model", join([figure, table(
        ["rank", "model", "backend", "accuracy", "95% low", "95% high", "n", "correct", "unparsed", "errors",
         "tokens", "cost (USD)"], rows)]))


def _units(report: EvaluationReport, names: Sequence[str]) -> Section:
    units = unit_order(report.item_units)
    per_model = {name: {u.unit: u for u in unit_accuracy(report.item_units, report.outcomes.get(name, {}))}
                 for name in names}
    if not units or not names:
        return Section("units", "Accuracy per knowledge unit", note("No items."))
    data = [{
        "type": "heatmap", "x": [label(n) for n in names], "y": [label(u) for u in units],
        "z": [[round(per_model[n][u].accuracy, 4) for n in names] for u in units],
        "text": [[f"{per_model[n][u].accuracy:.0%} of {per_model[n][u].n}" for n in names] for u in units],
        "texttemplate": "%{text}", "zmin": 0, "zmax": 1, "colorscale": "Blues",
        "colorbar": {"title": {"text": "accuracy"}, "tickformat": ".0%"},
        "hovertemplate": "%{y} · %{x}: %{text}<extra></extra>"}]
    figure = chart("chart-units", "Accuracy per knowledge unit (from each question's provenance)", data, {
        "yaxis": {"autorange": "reversed"}, "xaxis": {"side": "top"}},
        height=180 + 32 * len(units))
    rows = []
    for u in units:
        cells: list[object] = [u, per_model[names[0]][u].n]
        for n in names:
            a = per_model[n][u]
            cells.append(f"{a.accuracy:.1%} [{a.ci_low:.1%}, {a.ci_high:.1%}]")
        rows.append(cells)
    return Section("units", "Accuracy per knowledge unit", join([
        figure, table(["unit", "items", *names], rows),
        note("A question counts for each unit its provenance names. Intervals: Wilson score, 95%."),
    ]))


def _reference(report: EvaluationReport) -> Section:
    reference = report.reference or {}
    models = report.results.get("models", {})
    scores = {name: r["accuracy"] for name, r in models.items()}
    agreement = compare_rankings(reference, scores)
    common = list(agreement.models)
    data = [{
        "type": "scatter", "mode": "markers+text", "x": [reference[m] for m in common],
        "y": [scores[m] for m in common],
        "text": [label(m) for m in common], "textposition": "top center", "cliponaxis": False,
        "marker": {"size": 12, "color": ORANGE},
        "hovertemplate": "%{text}: reference %{x}, accuracy %{y:.1%}<extra></extra>"}]
    figure = chart("chart-reference", "This benchmark's accuracy against the reference score", data, {
        "xaxis": {"title": {"text": f"reference: {label(report.reference_label)}"}},
        "yaxis": {"title": {"text": "accuracy on this benchmark"}, "tickformat": ".0%"},
        "showlegend": False}, height=400)
    reference_ranks = {e["model"]: e["rank"] for e in ranking_document({m: reference[m] for m in common})["ranking"]}
    own_ranks = {e["model"]: e["rank"] for e in ranking_document({m: scores[m] for m in common})["ranking"]}
    parts: list[Markup] = [figure, pairs([
        ("reference", report.reference_label), ("models in common", len(common)),
        ("Spearman rho", agreement.spearman), ("Spearman p-value", agreement.spearman_p),
        ("Kendall tau-b", agreement.kendall_tau_b), ("Kendall p-value", agreement.kendall_p),
        ("best model: reference / this benchmark",
         f"{plain(list(agreement.top1_a))} / {plain(list(agreement.top1_b))}"),
        ("top-1 agreement", agreement.top1_agree),
        ("only in the reference", list(agreement.only_in_a) or None),
        ("only evaluated here", list(agreement.only_in_b) or None),
    ]), table(["model", "reference score", "reference rank", "accuracy", "rank here"], [
        [m, reference[m], reference_ranks[m], scores[m], own_ranks[m]]
        for m in sorted(common, key=lambda m: (own_ranks[m], m))])]
    if agreement.spearman is None:
        parts.append(element("p", "A ranking with all scores tied: the correlations are undefined.", class_="warning"))
    parts.append(note("Correlations over the models both rankings contain (scipy; Spearman ranks ties by their "
                      "average, Kendall's tau-b corrects for ties)."))
    return Section("reference", "Agreement with the reference ranking", join(parts))
