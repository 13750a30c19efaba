"""Pairwise LLM judge with swapped order, against the local server with recorded answers."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from scicustom.adapters.litellm_llm import LiteLLMAdapter
from scicustom.adapters.llm_response_cache import LLMResponseCache
from scicustom.cli import main
from scicustom.core.m2m.pairwise_judge import Answer, judge_prompt, pairwise_report, parse_verdict
from tests.unit.m2m.synthetic_rows import rows_to_csv, synthetic_rows

HYPOTHESIS_A = re.compile(r"HYPOTHESIS A:\n(.*?)\n\nHYPOTHESIS B", re.DOTALL)


def verdict(overall: str) -> str:
    return json.dumps({"problem_addressed": overall, "mechanistic_depth": overall, "scientific_utility": overall,
                       "overall": overall, "confidence": "high"})


def install_judges(server) -> None:  # type: ignore[no-untyped-def]
    """judge-a prefers the hypothesis that names a mechanism; judge-b always says A; judge-c rambles."""

    def reply(messages: list[dict[str, str]]) -> str:
        model = server.calls[-1]["model"]
        if model == "judge-b":
            return "```json\n" + verdict("A") + "\n```"
        if model == "judge-c":
            return "Both have merit; I lean towards the first one."
        first = HYPOTHESIS_A.search(messages[-1]["content"]).group(1)
        return verdict("A" if "mechanism" in first else "B")

    server.default = reply


def answers() -> dict[str, dict[str, Answer]]:
    good = {f"p{i}": Answer(f"problem {i}", "LFP", "fade", f"A mechanism-grounded idea {i}") for i in range(4)}
    weak = {f"p{i}": Answer(f"problem {i}", "LFP", "fade", f"Make it better {i}") for i in range(5)}
    return {"good": good, "weak": weak}


@pytest.mark.parametrize(("text", "winner", "error"), [
    (verdict("B"), "B", False),
    ("```json\n" + verdict("A") + "\n```", "A", False),
    ('{"overall": "tie", "confidence": "low"}', "tie", False),
    ('Sure! {"overall": "B", "confidence": "high",}', "B", True),  # broken JSON, readable fragment
    ("A is better, clearly.", "tie", True),
    ("", "tie", True),
])
def test_parse_verdict(text: str, winner: str, error: bool) -> None:
    parsed = parse_verdict(text)
    assert (parsed.winner, parsed.parse_error) == (winner, error)


def test_prompt_follows_appendix_c_and_truncates() -> None:
    long = Answer("p" * 900, "s" * 100, "f" * 200, "h" * 500)
    messages = judge_prompt(long, Answer("", "", "", "other"))
    assert messages[0]["content"].startswith("You are an expert battery materials scientist")
    user = messages[1]["content"]
    assert "p" * 500 in user and "p" * 501 not in user
    assert "HYPOTHESIS A:\n" + "h" * 400 + "\n" in user and "HYPOTHESIS B:\nother" in user
    assert '"overall": "A|B"' in user


def test_swapped_order_agreement_and_flips(recorded_llm, tmp_path: Path) -> None:
    install_judges(recorded_llm)
    llm = LiteLLMAdapter(LLMResponseCache(tmp_path / "cache.sqlite"), api_base=recorded_llm.api_base,
                         api_key="test", backoff_s=0.0)
    report = pairwise_report(llm, ["openai/judge-a", "openai/judge-b", "openai/judge-c"], answers(),
                             {"good": 0.5, "weak": 0.4})
    pairs = report["pairs"]
    a = pairs["good vs weak | openai/judge-a"]
    assert (a["n"], a["wins_a"], a["wins_b"], a["ties"], a["flip_rate"]) == (4, 4, 0, 0, 0.0)
    assert a["judge_winner"] == "good" and a["agrees_with_cbs"] is True
    b = pairs["good vs weak | openai/judge-b"]
    assert (b["ties"], b["flip_rate"], b["judge_winner"], b["agrees_with_cbs"]) == (4, 1.0, "tie", False)
    c = pairs["good vs weak | openai/judge-c"]
    assert (c["ties"], c["parse_errors"], c["flip_rate"]) == (4, 8, 0.0)
    summary = report["summary"]
    assert summary["cbs_judge_agreement"] == {"openai/judge-a": 1.0, "openai/judge-b": 0.0, "openai/judge-c": 0.0}
    assert summary["judge_judge_agreement"]["openai/judge-a vs openai/judge-b"] == 0.0
    assert summary["judge_judge_agreement"]["openai/judge-b vs openai/judge-c"] == 1.0  # ties everywhere
    assert summary["mean_order_flip_rate"] == round(1 / 3, 4)
    assert summary["calls"] == 24 and len(recorded_llm.calls) == 24
    # Both orders were asked: the good hypothesis appears once as A and once as B per problem.
    firsts = [HYPOTHESIS_A.search(c["messages"][-1]["content"]).group(1) for c in recorded_llm.calls[:8]]
    assert sum("mechanism" in f for f in firsts) == 4


def test_cli_judge_uses_the_cache_on_rerun(recorded_llm, tmp_path: Path, monkeypatch) -> None:
    install_judges(recorded_llm)
    monkeypatch.setenv("SCICUSTOM_LLM_CACHE_DIR", str(tmp_path / "llm"))
    monkeypatch.setenv("SCICUSTOM_TEST_LLM_KEY", "test")
    rows = synthetic_rows(6, seed=3)
    multi = [{**r, "paper_id": f"q{i % 3}", "_system": "x" if i < 3 else "y"} for i, r in enumerate(rows)]
    (tmp_path / "in.csv").write_bytes(rows_to_csv(multi))
    args = ["score", "m2m", "--input", str(tmp_path / "in.csv"), "--output", str(tmp_path / "out.json"),
            "--system-column", "_system", "--report", str(tmp_path / "report.json"),
            "--judge-models", "openai/judge-a,openai/judge-c", "--judge-pairs", "y:x",
            "--llm-api-base", recorded_llm.api_base, "--llm-api-key-env", "SCICUSTOM_TEST_LLM_KEY"]
    assert main(args) == 0
    first = json.loads((tmp_path / "report.json").read_text())["pairwise_judge"]
    assert list(first["pairs"]) == ["y vs x | openai/judge-a", "y vs x | openai/judge-c"]
    assert first["usage"]["calls"] == 12 and first["summary"]["parse_errors"] == 6
    assert main(args) == 0
    second = json.loads((tmp_path / "report.json").read_text())["pairwise_judge"]
    assert len(recorded_llm.calls) == 12  # the rerun answered everything from the cache
    assert second["usage"] == {**first["usage"], "calls": 0, "cached_calls": 12, "prompt_tokens": 0,
                               "completion_tokens": 0}
    assert second["pairs"] == first["pairs"]


def test_cli_rejects_unknown_pair(recorded_llm, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setenv("SCICUSTOM_LLM_CACHE_DIR", str(tmp_path / "llm"))
    monkeypatch.setenv("SCICUSTOM_TEST_LLM_KEY", "test")
    rows = [{**r, "_system": "x"} for r in synthetic_rows(3, seed=3)]
    (tmp_path / "in.csv").write_bytes(rows_to_csv(rows))
    code = main(["score", "m2m", "--input", str(tmp_path / "in.csv"), "--output", str(tmp_path / "out.json"),
                 "--system-column", "_system", "--report", str(tmp_path / "r.json"), "--judge-models", "openai/j",
                 "--judge-pairs", "x:z", "--llm-api-base", recorded_llm.api_base])
    assert code == 2 and not (tmp_path / "out.json").exists() and not recorded_llm.calls
