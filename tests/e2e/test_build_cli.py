"""End to end through the CLI on a real slice of the packaged corpus with the real local models."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from scicustom.cli import main
from scicustom.config import RESOURCES

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[2]
VIROLOGY = str(RESOURCES / "requirements/healthcare_virology.yaml")
INORGANIC = str(RESOURCES / "requirements/chemistry_inorganic.yaml")
FILES = {"voting.json", "candidates.jsonl", "cutoff.json", "proxy.jsonl", "benchmark.jsonl", "coverage.json",
         "config.json", "report.html"}


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    """A fresh home with a 150-per-source slice, sharing the wheel and model caches of `make setup`."""
    saved = dict(os.environ)
    home = tmp_path_factory.mktemp("home")
    os.environ["SCICUSTOM_HOME"] = str(home)
    os.environ.setdefault("SCICUSTOM_WHEEL_CACHE_DIR", str(REPO / ".scicustom/cache/wheels"))
    os.environ.setdefault("SCICUSTOM_MODEL_CACHE_DIR", str(REPO / ".scicustom/cache/models"))
    assert main(["corpus", "import", "--limit-per-source", "150"]) == 0
    assert main(["corpus", "tag"]) == 0
    yield home
    os.environ.clear()
    os.environ.update(saved)


def test_reimport_is_idempotent(home, capsys):
    assert main(["corpus", "import", "--limit-per-source", "150"]) == 0
    out = capsys.readouterr().out
    assert out.count("up to date") == 7
    assert "corpus now holds" in out


def test_build_writes_all_files_and_is_reproducible(home, tmp_path, capsys):
    # A 1,050-item slice covers most requirements thinly (virology: no relevant item; exit 3). Inorganic
    # chemistry has a few, so the floor is lowered to 1 to check the MCQs themselves.
    args = ["build", "--requirement", INORGANIC, "--k2", "12", "--proxy-samples", "20", "--min-items", "1"]
    assert main([*args, "--out", str(tmp_path / "a")]) == 0
    summary = capsys.readouterr().out
    assert "voted units" in summary and "benchmark" in summary
    assert {p.name for p in (tmp_path / "a").iterdir()} == FILES
    assert main([*args, "--out", str(tmp_path / "b")]) == 0
    for name in FILES:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name

    rows = [json.loads(line) for line in (tmp_path / "a/benchmark.jsonl").read_text().splitlines()]
    assert 1 <= len(rows) <= 12
    for row in rows:
        assert set(row) == {"id", "query", "answer", "choices", "answer_index", "provenance", "distractor_method"}
        labels = [line[0] for line in row["query"].splitlines()[1:] if line[1:3] == ". "]
        assert row["answer"] in labels and labels == list("ABCDE"[: len(labels)])
        assert len(row["choices"]) == len(labels) and labels[row["answer_index"]] == row["answer"]
        assert row["query"].endswith("\n".join(f"{lab}. {c}" for lab, c in zip(labels, row["choices"], strict=True)))
        assert set(row["provenance"]) == {"source_item_id", "source", "licence", "units", "candidate_rank"}
    cutoff = json.loads((tmp_path / "a/cutoff.json").read_text())
    assert cutoff["n_probes"] == len(cutoff["probes"]) >= 1
    config = json.loads((tmp_path / "a/config.json").read_text())
    assert config["judges"]["mode"] == "offline" and len(config["judges"]["voting"]) == 3
    assert config["params"]["k2"] == 12


def test_a_thin_build_writes_its_files_and_exits_3_with_the_reason(home, tmp_path, capsys):
    args = ["build", "--requirement", VIROLOGY, "--k2", "12", "--proxy-samples", "20"]
    assert main([*args, "--out", str(tmp_path / "a")]) == 3
    assert "thin coverage" in capsys.readouterr().err
    assert main([*args, "--out", str(tmp_path / "b")]) == 3
    for name in FILES:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name
    config = json.loads((tmp_path / "a/config.json").read_text())
    assert config["coverage"]["status"] == "thin" and config["coverage"]["thin_units"]
    rows = (tmp_path / "a/benchmark.jsonl").read_text().splitlines()
    assert len(rows) == config["coverage"]["n_mcq"] < 10  # nothing generic added to reach the floor


def _one_line_error(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("scicustom: error:")
    return err[0]


def test_bad_requirement_file_exits_2_without_output(home, tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("requirement: x\ndescription: [unclosed\n")
    assert main(["build", "--requirement", str(bad), "--out", str(tmp_path / "o")]) == 2
    assert "not valid YAML" in _one_line_error(capsys)
    missing = tmp_path / "missing.yaml"
    assert main(["build", "--requirement", str(missing), "--out", str(tmp_path / "o")]) == 2
    assert "not a file" in _one_line_error(capsys)
    no_desc = tmp_path / "nodesc.yaml"
    no_desc.write_text("requirement: x\n")
    assert main(["build", "--requirement", str(no_desc), "--out", str(tmp_path / "o")]) == 2
    assert "description" in _one_line_error(capsys)
    assert not (tmp_path / "o").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_existing_output_needs_force(home, tmp_path, capsys):
    (tmp_path / "o").mkdir()
    assert main(["build", "--requirement", VIROLOGY, "--out", str(tmp_path / "o")]) == 2
    assert "--force" in _one_line_error(capsys)


def test_bad_arguments_exit_2(home, tmp_path, capsys):
    assert main(["build", "--requirement", VIROLOGY, "--out", str(tmp_path / "o"), "--k2", "0"]) == 2
    assert "k2" in _one_line_error(capsys)
    assert main(["build", "--requirement", VIROLOGY]) == 2
    assert "--out" in _one_line_error(capsys)


def test_empty_corpus_exits_2(home, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("SCICUSTOM_HOME", str(tmp_path / "empty"))
    assert main(["build", "--requirement", VIROLOGY, "--out", str(tmp_path / "o")]) == 2
    assert "corpus is empty" in _one_line_error(capsys)
    assert not (tmp_path / "o").exists()


def test_malformed_user_items_are_skipped_and_counted(home, tmp_path, capsys):
    src = tmp_path / "mine.jsonl"
    src.write_text("\n".join([
        json.dumps({"question": "What encloses a viral genome?", "answer": "The capsid"}),
        json.dumps({"question": "Which is a DNA virus?", "options": ["HPV", "HIV"], "answer_index": 0}),
        json.dumps({"question": "Broken", "options": ["only one"], "answer_index": 0}),
        "not json at all",
    ]))
    assert main(["corpus", "import", "--jsonl", str(src), "--source-name", "mylab", "--licence", "CC0"]) == 0
    out = capsys.readouterr().out
    assert "mylab" in out and "skipped 1 x fewer than two options" in out and "skipped 1 x question is not text" in out


def test_llm_jury_build_and_rerun_makes_no_new_calls(home, tmp_path, recorded_llm, monkeypatch, capsys):
    recorded_llm.rules.append(("Candidate Tags", "Virology\nViral replication\nViral structure\nImmune system"))
    recorded_llm.rules.append(("Is this item relevant",
                               lambda msgs: "yes" if "vir" in msgs[-1]["content"].lower() else "no"))
    monkeypatch.setenv("SCICUSTOM_LLM_API_BASE", recorded_llm.api_base)
    monkeypatch.setenv("SCICUSTOM_LLM_API_KEY", "test")
    monkeypatch.setenv("SCICUSTOM_LLM_CACHE_DIR", str(tmp_path / "llm"))
    args = ["build", "--requirement", VIROLOGY, "--llm-judges", "--k2", "10"]
    assert main([*args, "--out", str(tmp_path / "a")]) == 0
    calls = len(recorded_llm.calls)
    assert calls >= 3 + 3  # three voting judges, then three relevance votes per probe
    config = json.loads((tmp_path / "a/config.json").read_text())
    assert config["judges"]["voting"] == ["llm:openai/gpt-5", "llm:anthropic/claude-opus-4-5",
                                          "llm:gemini/gemini-3-pro-preview"]
    voting = json.loads((tmp_path / "a/voting.json").read_text())
    assert [u["name"] for u in voting["units"]] == ["Virology", "Viral replication", "Viral structure",
                                                     "Immune system"]
    assert main([*args, "--out", str(tmp_path / "b")]) == 0
    assert len(recorded_llm.calls) == calls
    assert (tmp_path / "a/benchmark.jsonl").read_bytes() == (tmp_path / "b/benchmark.jsonl").read_bytes()
