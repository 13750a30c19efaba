"""The build report, `report.html`: what a build decided and why, from its files alone.

Rendered from the texts of the build's files (voting.json, candidates.jsonl, cutoff.json,
proxy.jsonl, benchmark.jsonl, coverage.json, config.json, and diff.json when the build was compared
with a previous one), so `scicustom build`, the cluster's complete stage and `scicustom report DIR`
give the same bytes for the same build.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scicustom.app.report.build_file_shapes import check_document
from scicustom.app.report.charts import BLUE, GREEN, GREY, ORANGE, RED, SERIES, chart, label
from scicustom.app.report.html_page import (
    Markup,
    Section,
    cards,
    element,
    join,
    note,
    page,
    pairs,
    plain,
    table,
)
from scicustom.core.errors import InvalidInput
from scicustom.core.evaluation.benchmark_lines import LABELS, split_query
from scicustom.core.jsonl import NotJSON, json_loads, jsonl_lines, parse_jsonl

REPORT_FILE = "report.html"
BUILD_FILES = ("voting.json", "candidates.jsonl", "cutoff.json", "proxy.jsonl", "benchmark.jsonl",
               "coverage.json", "config.json")
OPTIONAL_FILES = ("diff.json",)
SAMPLE_QUESTIONS = 20  # the first questions of the benchmark shown in full
LOG_TICKS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000]


@dataclass(frozen=True)
class BuildFiles:
    voting: dict[str, Any]
    candidates: list[dict[str, Any]]
    cutoff: dict[str, Any]
    proxy: list[dict[str, Any]]
    benchmark: list[dict[str, Any]]
    coverage: dict[str, Any]
    config: dict[str, Any]
    diff: dict[str, Any] | None = None

    @classmethod
    def from_texts(cls, files: Mapping[str, str], where: str) -> BuildFiles:
        """Parse a build's files (name -> text); `where` names the build in errors."""
        missing = [name for name in BUILD_FILES if name not in files]
        if missing:
            raise InvalidInput(where, f"not a build folder: {', '.join(missing)} missing")

        def document(name: str) -> dict[str, Any]:
            try:
                value = json_loads(files[name])
            except NotJSON as exc:
                raise InvalidInput(f"{where} {name}", f"not JSON: {exc}") from None
            if not isinstance(value, dict):
                raise InvalidInput(f"{where} {name}", "expected a JSON object")
            check_document(value, name, where)
            return value

        def rows(name: str) -> list[dict[str, Any]]:
            found = []
            for location, row in parse_jsonl(jsonl_lines(files[name]), f"{where} {name}"):
                try:
                    check_document(row, name, where)
                except InvalidInput as exc:  # name the row too
                    raise InvalidInput(location, exc.problem) from None
                found.append(row)
            return found

        return cls(voting=document("voting.json"), candidates=rows("candidates.jsonl"),
                   cutoff=document("cutoff.json"), proxy=rows("proxy.jsonl"), benchmark=rows("benchmark.jsonl"),
                   coverage=document("coverage.json"), config=document("config.json"),
                   diff=document("diff.json") if "diff.json" in files else None)


def build_report_html(files: Mapping[str, str], where: str = "build") -> str:
    return render_build_report(BuildFiles.from_texts(files, where))


def read_build_folder(path: Path, field: str = "BUILD_DIR") -> dict[str, str]:
    """The texts of a build output folder's files (`scicustom report BUILD_DIR`)."""
    if not path.is_dir():
        raise InvalidInput(field, f"{path} is not a directory")
    names = [n for n in (*BUILD_FILES, *OPTIONAL_FILES) if (path / n).is_file()]
    missing = [n for n in BUILD_FILES if n not in names]
    if missing:
        raise InvalidInput(field, f"{path} is not a build folder ({', '.join(missing)} missing)")
    try:
        return {n: (path / n).read_text(encoding="utf-8") for n in names}
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInput(field, f"cannot read {path}: {exc}") from None


def render_build_report(build: BuildFiles) -> str:
    requirement = build.config.get("requirement", {})
    params = build.config.get("params", {})
    subtitle = " · ".join(plain(v) for v in (
        requirement.get("domain"), f"method {params.get('method')}", f"seed {params.get('seed')}",
        f"scicustom {build.config.get('scicustom_version')}"))
    sections = [
        _overview(build), _votes(build), _candidates(build), _proxy(build), _coverage(build),
        _validity(build), _questions(build),
        *([_diff(build.diff)] if build.diff is not None else []),
        _parameters(build),
    ]
    return page(f"SciCustom build report: {requirement.get('name', '')}", subtitle, sections)


# -- sections ---------------------------------------------------------------------------------------

def _overview(build: BuildFiles) -> Section:
    config, cutoff = build.config, build.cutoff
    requirement, status = config.get("requirement", {}), config.get("coverage", {})
    validity = config.get("validity", {})
    thin = status.get("status") == "thin"
    estimate = validity.get("estimated_on_topic")
    ci = validity.get("ci95")
    parts = [
        pairs([("requirement", requirement.get("name")), ("domain", requirement.get("domain"))]),
        element("p", requirement.get("description", "")),
        element("p", join([
            element("span", "thin coverage" if thin else "ok", class_="badge thin" if thin else "badge ok"),
            f"  {len(build.benchmark)} questions (floor {status.get('min_items')})"])),
        cards([
            ("candidates", cutoff.get("n_candidates")),
            ("cutoff position", cutoff.get("cutoff_position")),
            ("jury probes", cutoff.get("n_probes")),
            ("relevant and well-formed", cutoff.get("n_selected")),
            ("proxy subset", len(build.proxy)),
            ("questions", len(build.benchmark)),
            ("estimated on topic", f"{plain(estimate)}" + (f" [{plain(ci[0])}, {plain(ci[1])}]" if ci else "")),
        ]),
    ]
    if thin:
        parts.append(element("p", f"{status.get('message', '')}; {status.get('suggestion', '')}", class_="warning"))
    warnings = [w for w in config.get("warnings", []) if not (thin and w == status.get("message"))]
    if warnings:
        parts.append(element("h3", "Warnings"))
        parts.extend(element("p", w, class_="warning") for w in warnings)
    return Section("overview", "Overview", join(parts))


def _judge_ranks(voting: Mapping[str, Any]) -> dict[str, dict[str, int]]:
    """judge -> unit name -> its rank (1 = first); a unit a judge did not rank gets `missing_rank`."""
    missing = int(voting.get("missing_rank", 0))
    ranks: dict[str, dict[str, int]] = {}
    for judge, ranking in sorted(voting.get("per_judge", {}).items()):
        positions = {name: i + 1 for i, name in enumerate(ranking)}
        ranks[judge] = {u["name"]: positions.get(u["name"], missing) for u in voting.get("units", [])}
    return ranks


def _votes(build: BuildFiles) -> Section:
    voting = build.voting
    units = voting.get("units", [])
    if not units:
        return Section("votes", "Voted units", note(voting.get("note", "no units were voted")))
    ranks = _judge_ranks(voting)
    names = [u["name"] for u in units]
    data: list[dict[str, Any]] = [
        {"type": "scatter", "mode": "markers", "name": label(judge), "x": [ranks[judge][n] for n in names],
         "y": [label(n) for n in names], "marker": {"size": 10, "color": SERIES[i % len(SERIES)]},
         "hovertemplate": "%{y}: rank %{x}<extra>" + label(judge) + "</extra>"}
        for i, judge in enumerate(ranks)]
    data.append({"type": "scatter", "mode": "markers", "name": "consensus (mean rank)",
                 "x": [u["consensus_rank"] for u in units], "y": [label(n) for n in names],
                 "marker": {"symbol": "diamond", "size": 13, "color": "#102a43"},
                 "hovertemplate": "%{y}: mean rank %{x}<extra>consensus</extra>"})
    figure = chart("chart-votes", "Each judge's rank of the voted units (1 = best; log scale)", data, {
        "xaxis": {"type": "log", "title": {"text": "rank"}, "tickvals": LOG_TICKS},
        "yaxis": {"autorange": "reversed"}}, height=140 + 30 * len(units),
        caption=f"A unit a judge did not rank counts as rank {voting.get('missing_rank')}.")
    rows = [[i + 1, u["name"], u.get("id"), u.get("consensus_rank"), *(ranks[j][u["name"]] for j in ranks)]
            for i, u in enumerate(units)]
    parts = [figure, table(["#", "unit", "id", "mean rank", *ranks], rows)]
    demoted = voting.get("demoted_broad_units", [])
    if demoted:
        parts.append(note(join(["Broad units placed behind more specific ones: ", ", ".join(demoted)])))
    return Section("votes", "Voted units", join(parts))


def _candidates(build: BuildFiles) -> Section:
    cutoff, candidates = build.cutoff, build.candidates
    probes = cutoff.get("probes", [])
    position = {c["id"]: c["rank"] for c in candidates}
    embedding = bool(candidates) and "similarity" in candidates[0]
    curve_name = "similarity to the requirement" if embedding else "shared voted units"
    data: list[dict[str, Any]] = [{
        "type": "scatter", "mode": "lines", "name": curve_name, "line": {"shape": "hv", "color": GREY},
        "x": [c["rank"] for c in candidates],
        "y": [c.get("similarity") if embedding else len(c.get("shared_units", [])) for c in candidates],
        "hovertemplate": "position %{x}: %{y}<extra></extra>"}]
    accepted = cutoff.get("accepted_votes", {})
    if accepted:
        # by position only: two items at one position (an edited file) must not compare their votes
        kept = sorted(((position[i], votes) for i, votes in accepted.items() if i in position), key=lambda p: p[0])
        data.append({"type": "scatter", "mode": "markers", "name": "accepted by the jury", "yaxis": "y2",
                     "x": [p for p, _ in kept], "y": [_share(v) for _, v in kept],
                     "marker": {"size": 7, "color": BLUE, "symbol": "line-ns-open", "line": {"width": 2}},
                     "hovertemplate": "position %{x}: %{y:.0%} of the jury<extra>accepted</extra>"})
    if probes:
        data.append({"type": "scatter", "mode": "markers+text", "name": "binary-search probe", "yaxis": "y2",
                     "x": [p["position"] for p in probes], "y": [_share(p.get("votes", {})) for p in probes],
                     "text": [str(i + 1) for i in range(len(probes))], "textposition": "top center",
                     "marker": {"size": 12, "color": [GREEN if p.get("relevant") else RED for p in probes],
                                "line": {"width": 1, "color": "#102a43"}},
                     "customdata": [label(p["id"]) for p in probes],
                     "hovertemplate": "probe %{text} at %{x} (%{customdata}): %{y:.0%} relevant<extra></extra>"})
    shapes: list[dict[str, Any]] = [{"type": "line", "xref": "paper", "x0": 0, "x1": 1, "yref": "y2", "y0": 0.5,
                                     "y1": 0.5, "line": {"dash": "dot", "color": GREY}}]
    if cutoff.get("cutoff_position") is not None:
        shapes.append({"type": "line", "x0": cutoff["cutoff_position"], "x1": cutoff["cutoff_position"],
                       "yref": "paper", "y0": 0, "y1": 1, "line": {"dash": "dash", "color": ORANGE, "width": 2}})
    parts: list[Markup] = []
    if candidates:
        parts.append(chart("chart-relevance", "Candidates in order, the binary search's probes and the cutoff", data, {
            "xaxis": {"title": {"text": "candidate position"}},
            "yaxis": {"title": {"text": curve_name}, "rangemode": "tozero", **({} if embedding else {"dtick": 1})},
            "yaxis2": {"title": {"text": "share of the jury voting relevant"}, "overlaying": "y",
                       "side": "right", "range": [-0.05, 1.12], "tickformat": ".0%",
                       "tickvals": [0, 0.25, 0.5, 0.75, 1], "showgrid": False},
            "shapes": shapes}, height=430,
            caption=f"Orange dashed line: the cutoff at position {plain(cutoff.get('cutoff_position'))}; "
                    "dotted line: a strict majority of the jury. Green probes were judged relevant."))
    else:
        parts.append(note("No candidates."))
    judges = sorted({j for p in probes for j in p.get("votes", {})})
    if probes:
        parts.append(element("h3", f"Probes of the binary search ({len(probes)})"))
        parts.append(table(["step", "position", "item", *judges, "majority relevant", "reasons"], [
            [i + 1, p["position"], p["id"], *(_vote(p.get("votes", {}).get(j)) for j in judges), p.get("relevant"),
             "; ".join(f"{j}: {r}" for j, r in sorted(p.get("reasons", {}).items()))]
            for i, p in enumerate(probes)]))
    gate = cutoff.get("relevance_gate", {})
    quality = cutoff.get("quality_gate", {})
    parts.append(element("h3", "Relevance and quality gates"))
    parts.append(pairs([
        ("candidates", cutoff.get("n_candidates")), ("within the cutoff", gate.get("n_within_cutoff")),
        ("judged", gate.get("scanned", "the candidates within the cutoff")),
        ("rejected by the jury", gate.get("n_rejected_by_jury")), ("relevant", gate.get("n_relevant")),
        ("MCQ quality gate: checked / passed", f"{plain(quality.get('checked'))} / {plain(quality.get('passed'))}"),
        *((f"dropped: {reason}", n) for reason, n in sorted(quality.get("dropped", {}).items())),
    ]))
    return Section("candidates", "Candidates and cutoff", join(parts))


def _share(votes: Mapping[str, Any]) -> float:
    return round(sum(bool(v) for v in votes.values()) / len(votes), 4) if votes else 0.0


def _vote(value: object) -> str:
    return "–" if value is None else ("✓" if value else "✗")


def _proxy(build: BuildFiles) -> Section:
    subset, cut_set = build.proxy, build.cutoff.get("cut_set_scores", [])
    if not subset:
        return Section("proxy", "Proxy subset", note("No item reached the proxy subset."))
    first = subset[0]
    parts = [pairs([
        ("cut set (relevant, well-formed items)", len(cut_set) if cut_set else build.cutoff.get("n_selected")),
        ("proxy subset", len(subset)), ("k2", build.config.get("params", {}).get("k2")),
        ("W1 hardness (normalised)", first.get("subset_w1_hardness")),
        ("W1 quality (normalised)", first.get("subset_w1_quality")),
    ])]
    for key, title, axis in (("hardness", "Hardness", "answer perplexity under the small LM (log scale)"),
                             ("quality", "Quality", "Flesch reading ease")):
        data = [_box(f"cut set (n={len(cut_set)})", cut_set, key, GREY)] if cut_set else []
        data.append(_box(f"proxy subset (n={len(subset)})", subset, key, BLUE))
        w1 = plain(first.get(f"subset_w1_{key}"))
        parts.append(chart(f"chart-{key}", f"{title}: proxy subset against the cut set (W1 {w1}, normalised)", data, {
            "xaxis": {"title": {"text": axis}, **({"type": "log", "tickvals": LOG_TICKS} if key == "hardness" else {})},
            "showlegend": False}, height=260))
    parts.append(note("W1 is measured on the normalised scales the selection uses (log-perplexity and reading "
                      "ease, each divided by its standard deviation over the cut set); 0 when the cut set is "
                      "no larger than k2 and is itself the subset."
                      + ("" if cut_set else " This build's files do not list the cut set's scores.")))
    return Section("proxy", "Proxy subset", join(parts))


def _box(name: str, rows: Sequence[Mapping[str, Any]], key: str, color: str) -> dict[str, Any]:
    """The `key` score of each row as one horizontal box with every item's point."""
    return {"type": "box", "name": name, "x": [r[key] for r in rows], "orientation": "h", "boxpoints": "all",
            "jitter": 0.4, "pointpos": 0, "marker": {"color": color, "size": 5}, "line": {"color": color},
            "text": [label(r["id"]) for r in rows], "hovertemplate": "%{text}: %{x}<extra></extra>"}


def _coverage(build: BuildFiles) -> Section:
    units = build.coverage.get("units", [])
    if not units:
        return Section("coverage", "Coverage per unit", note("This method votes no units."))
    floor = build.coverage.get("min_items")
    names = [label(u["name"] + (" (thin)" if u.get("thin") else "")) for u in units]
    colours = [RED if u.get("thin") else BLUE for u in units]
    data = [
        {"type": "bar", "orientation": "h", "name": "relevant items", "y": names, "x": [u["relevant"] for u in units],
         "marker": {"color": colours}, "hovertemplate": "%{y}: %{x} relevant<extra></extra>"},
        {"type": "bar", "orientation": "h", "name": "in the benchmark", "y": names,
         "x": [u["in_benchmark"] for u in units], "marker": {"color": GREEN},
         "hovertemplate": "%{y}: %{x} in the benchmark<extra></extra>"},
    ]
    shapes = [] if floor is None else [{"type": "line", "x0": floor, "x1": floor, "yref": "paper", "y0": 0, "y1": 1,
                                        "line": {"dash": "dash", "color": ORANGE, "width": 2}}]
    figure = chart("chart-coverage", "Relevant items per voted unit (red: thin)", data, {
        "barmode": "group", "xaxis": {"title": {"text": "items"}}, "yaxis": {"autorange": "reversed"},
        "shapes": shapes}, height=140 + 34 * len(units),
        caption=f"Dashed line: the floor of {plain(floor)} relevant items; a unit below it is thin and needs data.")
    thin = [u for u in units if u.get("thin")]
    rows = [[u["name"], u.get("id"), u.get("corpus_items"), u.get("candidates"), u.get("relevant"),
             u.get("in_benchmark"), "thin" if u.get("thin") else "ok"] for u in units]
    parts = [figure, table(["unit", "id", "corpus items", "candidates", "relevant", "in benchmark", "coverage"], rows,
                           row_classes=["thin" if u.get("thin") else None for u in units], id_="coverage-table")]
    if thin:
        parts.append(note(join([f"{len(thin)} of {len(units)} voted units are thin: ",
                                ", ".join(u["name"] for u in thin)])))
    if build.coverage.get("note"):
        parts.append(note(build.coverage["note"]))
    return Section("coverage", "Coverage per unit", join(parts))


def _validity(build: BuildFiles) -> Section:
    validity = build.config.get("validity", {})
    judges = build.config.get("judges", {})
    acceptance = validity.get("judge_acceptance", judges.get("acceptance", {}))
    estimate, ci = validity.get("estimated_on_topic"), validity.get("ci95")
    parts = [pairs([
        ("estimated on-topic share", estimate),
        ("95% interval", f"[{plain(ci[0])}, {plain(ci[1])}]" if ci else None),
        ("items", validity.get("n_items")),
        ("calibration", validity.get("calibration", validity.get("note"))),
        *((f"items accepted by {level} offline judges", n)
          for level, n in sorted(validity.get("items_by_offline_agreement", {}).items())),
    ])]
    if acceptance or estimate is not None:
        names = sorted(acceptance)
        data: list[dict[str, Any]] = [{
            "type": "bar", "name": "share of the questions each judge accepted", "x": [label(n) for n in names],
            "y": [acceptance[n] for n in names], "marker": {"color": BLUE},
            "hovertemplate": "%{x}: %{y:.0%}<extra></extra>"}]
        if estimate is not None:
            data.append({"type": "bar", "name": "estimated on-topic share (95% interval)", "x": ["estimated on topic"],
                         "y": [estimate], "marker": {"color": GREEN},
                         "error_y": {"type": "data", "symmetric": False,
                                     "array": [round(ci[1] - estimate, 4)] if ci else [0],
                                     "arrayminus": [round(estimate - ci[0], 4)] if ci else [0]},
                         "hovertemplate": "%{y:.1%}<extra></extra>"})
        parts.append(chart("chart-validity", "Relevance: judge acceptance and the estimated on-topic share", data, {
            "yaxis": {"range": [0, 1.05], "tickformat": ".0%"}}, height=340))
    agreement = judges.get("agreement", {})
    if agreement:
        parts.append(element("h3", "LLM judges against the offline majority"))
        parts.append(pairs(sorted((k, v) for k, v in agreement.items())))
    return Section("validity", "Relevance estimate", join(parts))


def _options(row: Mapping[str, Any]) -> tuple[str, list[tuple[str, str]], str | None]:
    """Stem, (label, option) pairs and the correct label of a benchmark row: its `choices` and
    `answer_index` when it has them, else the options parsed from its query."""
    choices = row.get("choices")
    if isinstance(choices, list) and choices:
        index = row.get("answer_index")
        labels = list(LABELS) if len(choices) <= len(LABELS) else [str(i + 1) for i in range(len(choices))]
        correct = labels[index] if isinstance(index, int) and 0 <= index < len(choices) else row.get("answer")
        stem = row.get("question", row.get("stem"))
        if not isinstance(stem, str):
            stem, _ = _split(str(row.get("query", "")))
        return stem, [(labels[i], str(c)) for i, c in enumerate(choices)], correct
    stem, options = _split(str(row.get("query", "")))
    return stem, list(options.items()), row.get("answer")


def _split(query: str) -> tuple[str, dict[str, str]]:
    try:
        return split_query(query)
    except ValueError:
        return query, {}


def _questions(build: BuildFiles) -> Section:
    rows = build.benchmark
    if not rows:
        return Section("questions", "Sample questions",
                       note("The benchmark has no questions: no candidate passed the relevance jury and the "
                            "quality gate. See the coverage per unit for the units that need data."))
    shown = []
    for number, row in enumerate(rows[:SAMPLE_QUESTIONS], 1):
        stem, options, correct = _options(row)
        provenance = row.get("provenance", {})
        items = [element("li", f"{key}. {option}" + ("  ✓ correct" if key == correct else ""),
                         class_="correct" if key == correct else None) for key, option in options]
        details = [("source", provenance.get("source")), ("licence", provenance.get("licence")),
                   ("source item", provenance.get("source_item_id")), ("units", provenance.get("units")),
                   ("candidate position", provenance.get("candidate_rank")),
                   ("distractors", row.get("distractor_method"))]
        shown.append(element("div", join([
            element("b", f"{number}. {row.get('id', '')}"),
            element("pre", stem),
            element("ol", join(items)) if items else note(f"answer: {plain(correct)}"),
            element("div", " · ".join(f"{k}: {plain(v)}" for k, v in details if v is not None), class_="provenance"),
        ]), class_="question"))
    more = len(rows) - len(shown)
    tail = [note(f"{more} more questions in benchmark.jsonl.")] if more > 0 else []
    return Section("questions", f"Sample questions ({len(shown)} of {len(rows)})", join([*shown, *tail]))


def _diff(diff: Mapping[str, Any]) -> Section:
    questions, voted = diff.get("questions", {}), diff.get("voted_units", {})
    parts = [pairs([
        ("previous build", diff.get("previous")), ("requirement changed", diff.get("requirement_changed")),
        ("questions before / after", f"{plain(questions.get('n_before'))} / {plain(questions.get('n_after'))}"),
        ("added / removed / kept", " / ".join(str(len(questions.get(k, []))) for k in ("added", "removed", "kept"))),
        ("voted units gained", [u.get("name") for u in voted.get("gained", [])] or None),
        ("voted units lost", [u.get("name") for u in voted.get("lost", [])] or None),
    ])]
    changed = diff.get("coverage_changed", [])
    if changed:
        fields = ("corpus_items", "relevant", "in_benchmark")
        parts.append(table(["unit", *(f"{f.replace('_', ' ')} before → after" for f in fields)], [
            [c.get("name"), *(f"{plain(c[f]['before'])} → {plain(c[f]['after'])}" for f in fields)] for c in changed]))
    return Section("diff", "Changes since the previous build", join(parts))


def _parameters(build: BuildFiles) -> Section:
    config = build.config
    judges = config.get("judges", {})
    return Section("parameters", "Parameters and versions", join([
        element("h3", "Parameters"), pairs(sorted(config.get("params", {}).items())),
        element("h3", "Judges"), pairs([
            ("mode", judges.get("mode")), ("voting jury", judges.get("voting")),
            ("relevance jury", judges.get("relevance")), ("MCQ writer", judges.get("mcq_writer"))]),
        element("h3", "Versions"), pairs([("scicustom", config.get("scicustom_version")),
                                          *sorted(config.get("corpus", {}).items())]),
    ]))
