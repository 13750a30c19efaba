"""`scicustom score m2m` end to end: outputs, reports and exit code 2 on bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scicustom.cli import main
from tests.unit.m2m.synthetic_rows import rows_to_csv, rows_to_jsonl, synthetic_rows


@pytest.fixture(scope="module")
def rows() -> list[dict[str, str]]:
    return synthetic_rows(40, seed=11)


def run(*args: str | Path) -> int:
    return main(["score", "m2m", *map(str, args)])


def test_scores_csv_and_jsonl_alike(tmp_path: Path, rows) -> None:
    (tmp_path / "in.csv").write_bytes(rows_to_csv(rows))
    # An empty CSV cell is a missing value; in JSON that is null (while "" is a string).
    (tmp_path / "in.jsonl").write_bytes(rows_to_jsonl([{k: v or None for k, v in r.items()} for r in rows]))
    assert run("--input", tmp_path / "in.csv", "--output", tmp_path / "a.json") == 0
    assert run("--input", tmp_path / "in.jsonl", "--output", tmp_path / "b.json") == 0
    a = json.loads((tmp_path / "a.json").read_text())
    b = json.loads((tmp_path / "b.json").read_text())
    assert list(a) == [r["paper_id"] for r in rows]
    first = a[rows[0]["paper_id"]]
    assert set(first) == {"rcf", "hpa", "msi", "sns", "ip", "pdq", "cbs", "sub"}
    assert {"rcf_progression", "sns_within_system_novelty", "pdq_component_granularity"} <= set(first["sub"])
    assert a == b  # the same rows as CSV and as JSONL score the same
    assert run("--input", tmp_path / "in.csv", "--output", tmp_path / "c.json", "--corrected") == 0
    corrected = json.loads((tmp_path / "c.json").read_text())
    assert any(corrected[k]["sub"]["msi_high_kw_count"] < a[k]["sub"]["msi_high_kw_count"] for k in a)
    assert not list(tmp_path.glob(".*.tmp"))


def test_group_by_and_systems(tmp_path: Path, rows) -> None:
    multi = [{**r, "paper_id": f"q{i // 2}", "_system": "A" if i % 2 else "B"} for i, r in enumerate(rows[:14])]
    multi += [{**rows[20], "paper_id": "q99", "_system": "C"}]
    (tmp_path / "multi.csv").write_bytes(rows_to_csv(multi))
    out = tmp_path / "out.json"
    assert run("--input", tmp_path / "multi.csv", "--output", out, "--group-by", "_system",
               "--system-column", "_system") == 0
    document = json.loads(out.read_text())
    assert sorted(document) == ["A", "B", "C"]
    assert sorted(document["A"]) == [f"q{i}" for i in range(7)]
    assert document["C"]["q99"]["sns"] is None  # a group of one row gets no sns
    assert document["A"]["q0"]["sns"] is not None


def test_reports(tmp_path: Path, rows) -> None:
    (tmp_path / "in.csv").write_bytes(rows_to_csv(rows))
    literature = [{"paper_id": r["paper_id"], "hypothesis": r["hypothesis"]} for r in rows[:10]]
    (tmp_path / "lit.jsonl").write_bytes(rows_to_jsonl(literature))
    report = tmp_path / "report.json"
    assert run("--input", tmp_path / "in.csv", "--output", tmp_path / "out.json", "--report", report,
               "--taxonomy", "--sensitivity", "--attacks", "--attack-sample", "12",
               "--reference-file", tmp_path / "lit.jsonl", "--no-embeddings") == 0
    document = json.loads(report.read_text())
    assert set(document) == {"taxonomy", "sensitivity", "attacks", "reference_metrics"}
    assert document["reference_metrics"]["matched_rows"] == 10
    assert document["reference_metrics"]["means"]["bleu"] == 1.0  # each hypothesis against itself
    assert document["attacks"]["sampled_rows"] == 12
    assert set(document["attacks"]["delta_vs_original"]) == {"jargon_stuffing", "problem_mirroring",
                                                             "verbose_fake_reasoning"}
    assert document["sensitivity"]["level"] == "row"
    assert document["sensitivity"]["kendall_tau_vs_default"]["uniform"]["tau"] > 0


def bad_inputs(tmp_path: Path, rows) -> dict[str, list[str | Path]]:
    (tmp_path / "in.csv").write_bytes(rows_to_csv(rows))
    (tmp_path / "in.txt").write_text("hello")
    (tmp_path / "nohyp.csv").write_text("paper_id,problem_statement\n1,x\n")
    (tmp_path / "dup.csv").write_bytes(rows_to_csv([rows[0], rows[0]]))
    (tmp_path / "bad.jsonl").write_text('{"paper_id": "a"}\n{oops\n')
    (tmp_path / "empty.csv").write_text("")
    ok = tmp_path / "in.csv"
    return {
        "missing file": ["--input", tmp_path / "absent.csv"],
        "wrong extension": ["--input", tmp_path / "in.txt"],
        "no hypothesis column": ["--input", tmp_path / "nohyp.csv"],
        "duplicate ids": ["--input", tmp_path / "dup.csv"],
        "bad jsonl": ["--input", tmp_path / "bad.jsonl"],
        "empty csv": ["--input", tmp_path / "empty.csv"],
        "report flag without --report": ["--input", ok, "--taxonomy"],
        "judge without systems": ["--input", ok, "--report", tmp_path / "r.json", "--judge-models", "openai/x"],
        "unknown group column": ["--input", ok, "--group-by", "nope"],
        "bad reference file": ["--input", ok, "--report", tmp_path / "r.json", "--reference-file",
                               tmp_path / "in.txt"],
    }


@pytest.mark.parametrize("case", ["missing file", "wrong extension", "no hypothesis column", "duplicate ids",
                                  "bad jsonl", "empty csv", "report flag without --report",
                                  "judge without systems", "unknown group column", "bad reference file"])
def test_bad_input_exits_2_and_writes_nothing(tmp_path: Path, rows, capsys, case: str) -> None:
    out = tmp_path / "out.json"
    assert run(*bad_inputs(tmp_path, rows)[case], "--output", out) == 2
    assert not out.exists()
    message = capsys.readouterr().err.strip()
    assert message.startswith("scicustom: error:") and "\n" not in message
