"""The SciIF audit use case: one set of parameter checks for the CLI and the service, and the LLM
calls of one audit tallied through the port."""

from __future__ import annotations

import json

import pytest

from scicustom.app.scoring.sciif import AuditRequest, audit_answers
from scicustom.cli import main
from scicustom.core.errors import InvalidInput
from scicustom.core.sciif.items import ModelAnswer, parse_items
from tests.unit.sciif.conftest import ScriptedLLM, pointwise

ROW = {"id": "kin-1", "question": "A cart covers 10.0 m in 2.0 s. Find its speed.",
       "constraints": ["Symbols & Constants Standardization"], "final_answer": {"value": 5.0, "unit": "m/s"}}
ANSWER = "Let v denote the speed in m/s. Then v = 10.0/2.0 = 5.0 m/s.\n\nFinal Answer: v = 5.0 m/s"


def no_llm():
    raise AssertionError("a rules-only audit calls no LLM")


@pytest.mark.parametrize(("change", "message"), [
    ({"workers": 0}, "options.workers: must be at least 1"),
    ({"workers": 17}, "options.workers: 17 is above the limit 16"),
    ({"judges": ["a", "b", "c", "d", "e"]}, "options.judges: has 5 entries; give 0..4"),
    ({"judges": [" "]}, "options.judges[0]: is empty"),
    ({"answers": []}, "answers: is empty; give answers or options.generate_with"),
])
def test_parameters_are_checked(catalog, change, message) -> None:
    items = parse_items([("items[0]", ROW)], catalog)
    request = AuditRequest(**{"items": items, "answers": [ModelAnswer("kin-1", "alpha", ANSWER)], **change})
    with pytest.raises(InvalidInput) as error:
        audit_answers(request, catalog, no_llm)
    assert str(error.value) == message


def test_generated_answers_are_handed_over_before_the_audit(catalog) -> None:
    llm = ScriptedLLM(lambda model, messages: ANSWER if model == "solver" else pointwise("YES", "YES", "YES", "YES"))
    items = parse_items([("items[0]", ROW)], catalog)
    handed: list[ModelAnswer] = []
    result = audit_answers(AuditRequest(items=items, answers=[], judges=["judge"], generate_with="solver"),
                           catalog, lambda: llm, handed.extend)
    assert handed == result.generated == [ModelAnswer("kin-1", "solver", ANSWER)]
    assert result.usage is not None and result.report["usage"] == result.usage.summary()
    assert result.usage.calls == len(llm.calls) == 2  # the answer, the constraint audit (the rule checks 5.0 m/s)
    assert json.loads(result.report_json())["usage"]["calls"] == 2


def test_the_cli_reports_the_limit_under_its_flag(tmp_path, capsys) -> None:
    (tmp_path / "items.jsonl").write_text(json.dumps(ROW) + "\n")
    (tmp_path / "answers.jsonl").write_text(json.dumps({"id": "kin-1", "answer": ANSWER}) + "\n")
    assert main(["score", "sciif", "--items", str(tmp_path / "items.jsonl"), "--answers",
                 str(tmp_path / "answers.jsonl"), "--out", str(tmp_path / "r.json"), "--workers", "17"]) == 2
    assert capsys.readouterr().err.strip() == "scicustom: error: --workers: 17 is above the limit 16"
