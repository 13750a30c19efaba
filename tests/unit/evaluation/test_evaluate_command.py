"""`scicustom evaluate` end to end against two recorded OpenAI-compatible servers."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from scicustom.cli import main
from scicustom.core.evaluation.accuracy import bootstrap_interval
from tests.support.recorded_llm_server import RecordedLLMServer
from tests.unit.evaluation.benchmark_fixtures import REPLIES_A, REPLIES_B, asked, record, write_benchmark


@pytest.fixture
def second_llm() -> Iterator[RecordedLLMServer]:
    with RecordedLLMServer() as server:
        yield server


@pytest.fixture
def setup(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, recorded_llm: RecordedLLMServer,
          second_llm: RecordedLLMServer) -> dict[str, Any]:
    monkeypatch.setenv("SCICUSTOM_HOME", str(tmp_path / "home"))
    record(recorded_llm, REPLIES_A)
    record(second_llm, REPLIES_B)
    models = {
        "defaults": {"params": {"temperature": 0}},
        "providers": {
            "lab-a": {"api_base": recorded_llm.api_base, "api_key": "test", "backoff_s": 0},
            "lab-b": {"api_base": second_llm.api_base, "api_key": "test", "backoff_s": 0,
                      "requests_per_minute": 120, "max_retries": 0},
        },
        "models": [
            {"name": "judge-a", "model": "openai/judge-a", "provider": "lab-a"},
            {"name": "judge-b", "model": "openai/judge-b", "provider": "lab-b"},
        ],
    }
    models_path = tmp_path / "models.yaml"
    models_path.write_text(yaml.safe_dump(models))
    return {"benchmark": write_benchmark(tmp_path / "bench.jsonl"), "models": models_path,
            "out": tmp_path / "out", "a": recorded_llm, "b": second_llm, "home": tmp_path / "home"}


def _evaluate(s: dict[str, Any], *extra: str) -> int:
    return main(["evaluate", "--benchmark", str(s["benchmark"]), "--models", str(s["models"]),
                 "--out", str(s["out"]), "--bootstrap", "200", "--seed", "3", *extra])


def test_two_models_end_to_end(setup: dict[str, Any], capsys: pytest.CaptureFixture[str]) -> None:
    assert _evaluate(setup) == 0
    results = json.loads((setup["out"] / "results.json").read_text())
    a, b = results["models"]["judge-a"], results["models"]["judge-b"]
    assert (a["accuracy"], a["n"], a["n_correct"], a["n_unparsed"], a["n_errors"]) == (0.75, 4, 3, 0, 0)
    assert (b["accuracy"], b["n"], b["n_correct"], b["n_unparsed"], b["n_errors"]) == (0.5, 4, 2, 2, 0)
    # The recorded server bills 10 prompt + 5 completion tokens a call; unknown models cost nothing.
    assert a["tokens"] == {"prompt": 40, "completion": 20, "total": 60} and a["cost_usd"] == 0
    assert results["totals"] == {"tokens": 120, "cost_usd": 0}
    # Outcomes in benchmark order, the same resamples for both models (a paired bootstrap).
    assert (a["ci95"]["low"], a["ci95"]["high"]) == bootstrap_interval([1, 1, 1, 0], 200, seed=3)
    assert (b["ci95"]["low"], b["ci95"]["high"]) == bootstrap_interval([1, 0, 0, 1], 200, seed=3)
    assert results["bootstrap"] == {"method": "percentile", "resamples": 200, "seed": 3, "confidence": 0.95}
    assert results["benchmark"]["n_items"] == 4 and a["kind"] == "litellm" and a["model"] == "openai/judge-a"

    ranking = json.loads((setup["out"] / "ranking.json").read_text())
    assert [(e["rank"], e["model"], e["score"]) for e in ranking["ranking"]] == [(1, "judge-a", 0.75),
                                                                               (2, "judge-b", 0.5)]
    responses = (setup["out"] / "responses" / "judge-b.jsonl").read_text()
    lines = [json.loads(line) for line in responses.splitlines()]
    assert [(r["item_id"], r["chosen"], r["correct"], r["rule"]) for r in lines] == [
        ("q1", "A", True, "echoed option"), ("q2", None, False, "unparsed"),
        ("q3", None, False, "unparsed"), ("q4", "D", True, "leading label")]
    assert lines[1]["text"] == "I cannot answer."
    # Each model asked its own server every question once, with the litellm model name and params.
    assert asked(setup["a"]) == asked(setup["b"]) == {"q1": 1, "q2": 1, "q3": 1, "q4": 1}
    assert {c["model"] for c in setup["a"].calls} == {"judge-a"}
    assert all(c["temperature"] == 0 for c in setup["b"].calls)
    assert "LLM calls this run: 8 new, 0 from cache" in capsys.readouterr().out


def test_rerun_makes_no_new_calls_and_writes_the_same_files(setup: dict[str, Any],
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    assert _evaluate(setup) == 0
    first = {name: (setup["out"] / name).read_bytes() for name in ("results.json", "ranking.json")}
    calls = (len(setup["a"].calls), len(setup["b"].calls))
    assert _evaluate(setup) == 0  # resumes from progress: not even the cache is asked
    assert (len(setup["a"].calls), len(setup["b"].calls)) == calls
    assert "LLM calls this run: 0 new, 0 from cache" in capsys.readouterr().out
    shutil.rmtree(setup["out"] / "progress")  # a kill before any progress was saved: the cache answers
    assert _evaluate(setup) == 0
    assert (len(setup["a"].calls), len(setup["b"].calls)) == calls
    assert "LLM calls this run: 0 new, 8 from cache" in capsys.readouterr().out
    assert {name: (setup["out"] / name).read_bytes() for name in first} == first


def test_failed_calls_exit_1_and_a_rerun_retries_only_them(setup: dict[str, Any],
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    setup["b"].fail_next = 1  # lab-b has max_retries 0: the first question fails for good
    assert _evaluate(setup, "--concurrency", "1") == 1
    assert "judge-b (1)" in capsys.readouterr().err
    b = json.loads((setup["out"] / "results.json").read_text())["models"]["judge-b"]
    assert (b["n_errors"], b["n_correct"], b["accuracy"]) == (1, 1, 0.25)  # q1 failed: counted wrong
    assert _evaluate(setup, "--concurrency", "1") == 0
    assert asked(setup["b"]) == {"q1": 2, "q2": 1, "q3": 1, "q4": 1}  # only the failed call again
    assert asked(setup["a"]) == {"q1": 1, "q2": 1, "q3": 1, "q4": 1}
    b = json.loads((setup["out"] / "results.json").read_text())["models"]["judge-b"]
    assert (b["n_errors"], b["accuracy"]) == (0, 0.5)


def test_bad_input_exits_2_with_one_line(setup: dict[str, Any], capsys: pytest.CaptureFixture[str],
                                         tmp_path: Path) -> None:
    bad_yaml = tmp_path / "bad.yaml"
    bad_yaml.write_text("models: [unclosed")
    assert main(["evaluate", "--benchmark", str(setup["benchmark"]), "--models", str(bad_yaml),
                 "--out", str(setup["out"])]) == 2
    assert "is not valid YAML" in capsys.readouterr().err
    assert main(["evaluate", "--benchmark", str(tmp_path / "none.jsonl"), "--models", str(setup["models"]),
                 "--out", str(setup["out"])]) == 2
    assert "--benchmark: cannot read" in capsys.readouterr().err
    assert _evaluate(setup, "--concurrency", "0") == 2
    assert "--concurrency: must be >= 1" in capsys.readouterr().err
    keyed = tmp_path / "keyed.yaml"
    keyed.write_text(yaml.safe_dump({"providers": {"p": {"api_key_env": "SCICUSTOM_TEST_UNSET_KEY"}},
                                     "models": [{"name": "m", "model": "p/m"}]}))
    assert main(["evaluate", "--benchmark", str(setup["benchmark"]), "--models", str(keyed),
                 "--out", str(setup["out"])]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["scicustom: error: providers.p.api_key_env: environment variable SCICUSTOM_TEST_UNSET_KEY "
                   "is not set"]
    assert not (setup["out"] / "results.json").exists()
    assert setup["a"].calls == [] and setup["b"].calls == []


def test_models_of_one_provider_share_one_llm_adapter(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      recorded_llm: RecordedLLMServer) -> None:
    from scicustom.adapters.evaluation_files import ProgressFiles
    from scicustom.app.evaluation import build_answerers
    from scicustom.bootstrap import Context
    from scicustom.core.evaluation.model_spec import parse_models_file
    from scicustom.core.evaluation.run import run_model
    from tests.unit.evaluation.benchmark_fixtures import items

    monkeypatch.setenv("SCICUSTOM_HOME", str(tmp_path))
    monkeypatch.setenv("SCICUSTOM_LLM_API_BASE", recorded_llm.api_base)  # the gateway
    monkeypatch.setenv("SCICUSTOM_LLM_API_KEY", "test")
    models = parse_models_file({
        "providers": {"lab": {"api_base": recorded_llm.api_base, "api_key": "test", "requests_per_minute": 90},
                      "other": {"api_base": recorded_llm.api_base, "api_key": "test"}},
        "models": [{"name": "m1", "model": "openai/m1", "provider": "lab"},
                   {"name": "m2", "model": "openai/m2", "provider": "lab"},
                   {"name": "m3", "model": "openai/m3", "provider": "other"},
                   {"name": "m4", "model": "anthropic/m4"}],  # no provider entry: via the gateway
    })
    ctx = Context.from_environment()
    answerers, adapters = build_answerers(models, ctx.provider_llm, ctx.local_mcq_answerer, concurrency=2)
    assert [a.name for a in answerers] == ["m1", "m2", "m3", "m4"]
    assert set(adapters) == {"lab", "other", "anthropic"}
    for answerer in answerers:
        run_model(answerer, items(), ProgressFiles(tmp_path / "progress"), concurrency=2)
    # m1 and m2 went through the one "lab" adapter (one rate limiter); m3 and m4 through their own.
    assert [adapters[p].usage.calls for p in ("lab", "other", "anthropic")] == [8, 4, 4]
    assert {c["model"] for c in recorded_llm.calls} == {"m1", "m2", "m3", "anthropic/m4"}


def test_report_and_reference(setup: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    reference = tmp_path / "reference.json"
    reference.write_text(json.dumps({"judge-a": 0.4, "judge-b": 0.9, "other": 0.1}))
    report = tmp_path / "report.html"
    assert _evaluate(setup, "--report", str(report), "--reference", str(reference)) == 0
    out = capsys.readouterr().out
    assert f"against {reference}: Spearman rho -1.0, Kendall tau-b -1.0 over 2 models" in out
    html = report.read_text(encoding="utf-8")
    assert '<div id="chart-accuracy"' in html and '<div id="chart-reference"' in html
    # The benchmark's provenance names no units: every question is counted under "(no unit)".
    assert "<td>(no unit)</td><td class=\"num\">4</td><td>75.0% [30.1%, 95.4%]</td>" in html
    first = html
    assert _evaluate(setup, "--report", str(report), "--reference", str(reference)) == 0  # resumed: same bytes
    assert report.read_text(encoding="utf-8") == first


def test_a_reference_without_two_evaluated_models_is_refused_before_any_call(
        setup: dict[str, Any], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    reference = tmp_path / "reference.json"
    reference.write_text(json.dumps({"judge-a": 0.4, "other": 0.1}))
    assert _evaluate(setup, "--reference", str(reference)) == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        f"scicustom: error: --reference: {reference} ranks 1 of the evaluated models; "
        "rank correlations need at least 2"]
    assert setup["a"].calls == [] and setup["b"].calls == []
