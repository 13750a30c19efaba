"""The build report: written with every build, re-rendered byte for byte from the files, self-contained,
and safe with hostile text."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from scicustom.app.build.since import with_diff
from scicustom.app.report.build_report import build_report_html, read_build_folder
from scicustom.cli import main
from scicustom.core.build.build_diff import parse_build_files
from scicustom.core.errors import InvalidInput
from tests.unit.report.synthetic_build import (
    HOSTILE,
    HOSTILE_OPTION,
    build_files,
    empty_build_files,
    hostile_build_files,
    without_report,
)

SECTIONS = ("overview", "votes", "candidates", "proxy", "coverage", "validity", "questions", "parameters")
CHARTS = ("chart-votes", "chart-relevance", "chart-hardness", "chart-quality", "chart-coverage", "chart-validity")


def test_every_build_writes_the_report_its_files_render() -> None:
    files = build_files()
    assert list(files)[-1] == "report.html"
    report = files["report.html"]
    again = build_report_html(without_report(files))
    assert again == report  # `scicustom report DIR` gives the build's bytes
    assert build_report_html(without_report(files)) == again  # and is deterministic
    for section in SECTIONS:
        assert f'<section id="{section}">' in report, section
    for chart in CHARTS:
        assert report.count(f'<div id="{chart}" class="plotly-graph-div"') == 1, chart
    cutoff = json.loads(files["cutoff.json"])
    assert f"cut set (n={len(cutoff['cut_set_scores'])})" in report  # the subset against its cut set
    assert "Sample questions (20 of 20)" in report and "✓ correct" in report


def test_the_page_loads_nothing_from_the_network() -> None:
    report = build_files()["report.html"]
    assert report.count("* plotly.js v") == 1  # plotly.js inlined once
    assert re.findall(r"<script\b[^>]*>", report) == ["<script>"] * (1 + len(CHARTS))
    assert not re.search(r"<(script|img|iframe|link)\b[^>]*\s(src|href)=\"(?!data:)", report)
    assert "default-src 'none'" in report and '"displaylogo": false' in report


def test_hostile_text_is_shown_as_text() -> None:
    report = build_report_html(hostile_build_files())
    assert HOSTILE not in report and HOSTILE_OPTION not in report
    assert "&lt;script&gt;window.__pwned = 1&lt;/script&gt; What does a capsid protect?" in report
    assert "A. &lt;img src=&quot;x&quot; onerror=&quot;window.__pwned = 2&quot;&gt;" in report
    # In chart data a unit name is entity-escaped (plotly reads tags in labels) and "/" escaped by the JSON.
    assert "&lt;script&gt;window.__pwned = 1&lt;\\u002fscript&gt;" in report


def test_structured_choices_are_shown_when_a_row_has_them() -> None:
    files = without_report(build_files())
    row = {"id": "q-structured", "query": "Which is a virus?\nA. phage\nB. yeast", "answer": "A",
           "choices": ["bacteriophage T4", "baker's yeast"], "answer_index": 0,
           "provenance": {"source": "sciq", "units": ["Virology"], "candidate_rank": 3}}
    report = build_report_html({**files, "benchmark.jsonl": json.dumps(row) + "\n"})
    assert "A. bacteriophage T4  ✓ correct" in report and "B. baker&#x27;s yeast" in report
    assert "A. phage" not in report


def test_an_empty_benchmark_still_explains_the_build() -> None:
    report = build_report_html(empty_build_files())
    assert '<span class="badge thin">thin coverage</span>' in report
    assert "The benchmark has no questions" in report and "No item reached the proxy subset." in report
    assert report.count('<tr class="thin">') == 2  # both voted units highlighted
    assert "thin coverage: only 0 relevant MCQs" in report
    for chart in ("chart-votes", "chart-relevance", "chart-coverage"):
        assert f'<div id="{chart}"' in report
    assert 'id="chart-hardness"' not in report


def test_the_report_shows_the_diff_of_a_build_with_since() -> None:
    files = build_files()
    compared = with_diff(files, parse_build_files(files, "--since"), "/builds/previous")
    assert list(compared)[-2:] == ["report.html", "diff.json"]
    assert compared["report.html"] == build_report_html(without_report(compared))
    assert '<section id="diff">' in compared["report.html"] and "/builds/previous" in compared["report.html"]


def test_report_command_renders_a_folder_and_refuses_others(tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    files = build_files()
    build = tmp_path / "build"
    build.mkdir()
    for name, text in without_report(files).items():
        (build / name).write_text(text, encoding="utf-8")
    assert main(["report", str(build)]) == 0
    assert (build / "report.html").read_text(encoding="utf-8") == files["report.html"]
    assert main(["report", str(build), "--out", str(tmp_path / "r.html")]) == 0
    assert (tmp_path / "r.html").read_bytes() == (build / "report.html").read_bytes()
    capsys.readouterr()

    (build / "voting.json").unlink()
    assert main(["report", str(build)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"scicustom: error: BUILD_DIR: {build} is not a build folder (voting.json missing)"]
    with pytest.raises(InvalidInput, match="is not a directory"):
        read_build_folder(tmp_path / "none")
    (build / "voting.json").write_text("{not json", encoding="utf-8")
    assert main(["report", str(build)]) == 2
    assert "voting.json: not JSON" in capsys.readouterr().err
