from __future__ import annotations

import json

import pytest

from scicustom.cli import main
from tests.unit.sciif.conftest import pointwise

ITEMS = [
    {"id": "kin-1", "subject": "physics", "question": "A cart covers 10.0 m in 2.0 s. Find its speed.",
     "constraints": ["Symbols & Constants Standardization"], "final_answer": {"value": 5.0, "unit": "m/s"}},
    # A row in the release's own format.
    {"id": "kin-2", "subject": "physics", "question_with_constraints": "question: 12.0 m in 3.0 s; the speed?",
     "constraints": "Symbols & Constants Standardization、Variable Naming Consistency", "answer": "v = 4.0 m/s"},
]
GOOD = "Let v denote the speed in m/s, where d is the distance. Then v = d/t = {v} m/s.\n\nFinal Answer: v = {v} m/s"


def write_jsonl(path, rows):
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def files(tmp_path, monkeypatch):
    monkeypatch.setenv("SCICUSTOM_LLM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("TEST_LLM_KEY", "test")
    items = write_jsonl(tmp_path / "items.jsonl", ITEMS)
    answers = write_jsonl(tmp_path / "answers.jsonl", [
        {"id": "kin-1", "model": "alpha", "answer": GOOD.format(v="5.0")},
        {"id": "kin-2", "model": "alpha", "answer": GOOD.format(v="4.0")},
        {"id": "kin-1", "model": "beta", "answer": GOOD.format(v="5.5")},
    ])
    return tmp_path, items, answers


def run(*argv):
    return main(["score", "sciif", *map(str, argv)])


def test_rules_only_run_reports_undecided_never_passed(files, capsys):
    tmp, items, answers = files
    assert run("--items", items, "--answers", answers, "--out", tmp / "r.json") == 0
    report = json.loads((tmp / "r.json").read_text())
    alpha, beta = report["models"]["alpha"], report["models"]["beta"]
    assert alpha["compliance"]["pass"] == 0 and alpha["compliance"]["undecided"] == 2
    assert alpha["correctness"] == {"pass": 1, "fail": 0, "undecided": 1, "total": 2, "rate": 0.5,
                                    "decided_rate": 1.0}
    assert beta["correctness"]["fail"] == 1  # 5.5 m/s against 5.0 m/s, decided by the rule
    assert report["missing_answers"] == 1 and report["usage"] is None
    assert "alpha: items 2" in capsys.readouterr().out


def test_judged_run_and_rerun_without_new_calls(files, recorded_llm):
    tmp, items, answers = files
    recorded_llm.rules.append(("Constraint name:\nSymbols", pointwise("YES", "YES", "YES", "YES")))
    recorded_llm.rules.append(("Constraint name:\nVariable", pointwise("YES", "NO", "YES")))
    recorded_llm.rules.append(("equivalent to the reference answer", "VERDICT: YES"))
    argv = ["--items", items, "--answers", answers, "--judges", "openai/judge-a", "openai/judge-b",
            "--api-base", recorded_llm.api_base, "--api-key-env", "TEST_LLM_KEY", "--workers", "2"]
    assert run(*argv, "--out", tmp / "first.json") == 0
    calls = len(recorded_llm.calls)
    assert calls == 2 * (4 + 1)  # judges x (four constraint audits + one correctness audit)
    assert run(*argv, "--out", tmp / "second.json") == 0
    assert len(recorded_llm.calls) == calls
    first, second = (json.loads((tmp / f).read_text()) for f in ("first.json", "second.json"))
    assert second["usage"]["calls"] == 0 and second["usage"]["cached_calls"] == calls
    assert first["models"] == second["models"]
    alpha = first["models"]["alpha"]
    assert alpha["single_constraint"]["pass"] == 1 and alpha["multi_constraint"]["fail"] == 1
    assert first["table5_compliance_vs_k"]["rows"]["alpha"] == {"1": 1.0, "2": 0.0}
    assert alpha["per_constraint"]["Variable Naming Consistency"]["fail"] == 1


def test_loose_mode_and_gating_flags(files, recorded_llm):
    tmp, items, answers = files
    recorded_llm.rules.append(("Constraint name:", pointwise("YES", "NO", "YES", "YES")))
    argv = ["--items", items, "--answers", answers, "--judges", "openai/judge-a", "--api-base",
            recorded_llm.api_base, "--api-key-env", "TEST_LLM_KEY", "--mode", "loose", "--gate-on-correctness"]
    assert run(*argv, "--out", tmp / "r.json") == 0
    report = json.loads((tmp / "r.json").read_text())
    assert report["mode"] == "loose" and report["gate_on_correctness"] is True
    # Loose: SCS point_2 is secondary, so kin-1 complies for beta too, but beta's answer is wrong.
    assert report["models"]["beta"]["compliance"]["fail"] == 1
    assert report["models"]["alpha"]["single_constraint"]["pass"] == 1


def test_generate_then_audit(tmp_path, monkeypatch, recorded_llm):
    monkeypatch.setenv("SCICUSTOM_LLM_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setenv("TEST_LLM_KEY", "test")
    items = write_jsonl(tmp_path / "items.jsonl", ITEMS[:1])
    recorded_llm.rules.append(("You are solving a university-level scientific problem.", GOOD.format(v="5.0")))
    answers = tmp_path / "answers.jsonl"
    assert run("--items", items, "--answers", answers, "--generate-with", "openai/solver", "--api-base",
               recorded_llm.api_base, "--api-key-env", "TEST_LLM_KEY", "--out", tmp_path / "r.json") == 0
    rows = [json.loads(line) for line in answers.read_text().splitlines()]
    assert rows == [{"id": "kin-1", "model": "openai/solver", "answer": GOOD.format(v="5.0")}]
    report = json.loads((tmp_path / "r.json").read_text())
    assert report["models"]["openai/solver"]["correctness"]["pass"] == 1


@pytest.mark.parametrize(("mutate", "message"), [
    (lambda items, answers: items.write_text('{"id": "x", "question": "q", "constraints": ["Vibes"]}\n'),
     "unknown SciIF constraint 'Vibes'"),
    (lambda items, answers: items.write_text("{not json\n"), "not JSON"),
    (lambda items, answers: answers.write_text('{"id": "nope", "answer": "a"}\n'), "no item with id 'nope'"),
    (lambda items, answers: answers.write_text('{"id": "kin-1", "answer": "a"}\n{"id": "kin-1", "answer": "b"}\n'),
     "second answer"),
    (lambda items, answers: answers.unlink(), "does not exist"),
])
def test_bad_input_exits_2_with_one_line_and_writes_nothing(files, capsys, mutate, message):
    tmp, items, answers = files
    mutate(items, answers)
    assert run("--items", items, "--answers", answers, "--out", tmp / "r.json") == 2
    err = capsys.readouterr().err.strip()
    assert message in err and len(err.splitlines()) == 1
    assert not (tmp / "r.json").exists()
