from __future__ import annotations

import pytest

from scicustom.core.sciif.audit import SciIFAuditor, all_of, generate_answer
from scicustom.core.sciif.final_answer import parse_targets
from scicustom.core.sciif.items import ModelAnswer, SciIFItem
from tests.unit.sciif.conftest import ScriptedLLM, is_correctness_prompt, pointwise

ANSWER = ("Plan: let v denote the average speed in m/s, where d = 10.0 m is the distance and t = 2.0 s the time.\n"
          "Then v = d/t = 10.0/2.0 = 5.0 m/s.\n\nFinal Answer: v = 5.0 m/s")


def item(catalog, names=("Symbols & Constants Standardization",), target=None, reference=""):
    return SciIFItem(id="q1", question="A cart covers 10.0 m in 2.0 s. Find its average speed.",
                     constraints=catalog.resolve_list(list(names)), subject="physics",
                     reference_answer=reference, targets=parse_targets(target))


def judges_saying(per_model: dict[str, str], correctness: dict[str, str] | None = None) -> ScriptedLLM:
    def reply(model: str, messages: list[dict[str, str]]) -> str:
        if is_correctness_prompt(messages):
            return (correctness or {}).get(model, "VERDICT: YES\nREASON: [-]")
        return per_model[model]
    return ScriptedLLM(reply)


def audit(catalog, verifier, llm, the_item, mode="strict", answer=ANSWER):
    auditor = SciIFAuditor(catalog, verifier, llm=llm, judges=("judge-a", "judge-b"), mode=mode)
    return auditor.audit(the_item, ModelAnswer(the_item.id, "m", answer))


def test_kleene_and():
    assert all_of(["pass", "pass"]) == "pass"
    assert all_of(["pass", "undecided"]) == "undecided"
    assert all_of(["undecided", "fail"]) == "fail"
    assert all_of([]) == "pass"


def test_both_judges_pass_every_point(catalog, verifier):
    llm = judges_saying({"judge-a": pointwise("YES", "YES", "YES", "YES"),
                         "judge-b": pointwise("YES", "YES", "YES", "YES")})
    result = audit(catalog, verifier, llm, item(catalog))
    (scs,) = result.constraints
    assert scs.status == "pass" and result.compliance == "pass"
    assert [p.decided_by for p in scs.points] == ["judges"] * 4
    assert all(len(p.votes) == 2 for p in scs.points)


def test_a_point_passes_only_if_both_judges_pass_it(catalog, verifier):
    llm = judges_saying({"judge-a": pointwise("YES", "YES", "YES", "YES"),
                         "judge-b": pointwise("YES", "NO", "YES", "YES")})
    (scs,) = audit(catalog, verifier, llm, item(catalog)).constraints
    assert [p.status for p in scs.points] == ["pass", "fail", "pass", "pass"]
    assert scs.status == "fail"  # strict: every point is required
    assert "judge-b: missing" in scs.points[1].reason


def test_loose_mode_requires_only_main_points(catalog, verifier):
    # Symbols & Constants: point_2 is SECONDARY, point_4 is MAIN.
    secondary_no = judges_saying({"judge-a": pointwise("YES", "NO", "YES", "YES"),
                                  "judge-b": pointwise("YES", "YES", "YES", "YES")})
    assert audit(catalog, verifier, secondary_no, item(catalog), mode="loose").compliance == "pass"
    assert audit(catalog, verifier, secondary_no, item(catalog), mode="strict").compliance == "fail"
    main_no = judges_saying({"judge-a": pointwise("YES", "YES", "YES", "NO"),
                             "judge-b": pointwise("YES", "YES", "YES", "YES")})
    assert audit(catalog, verifier, main_no, item(catalog), mode="loose").compliance == "fail"


def test_loose_prompt_marks_main_and_secondary_points(catalog, verifier):
    llm = judges_saying({"judge-a": pointwise("YES", "YES", "YES", "YES"),
                         "judge-b": pointwise("YES", "YES", "YES", "YES")})
    audit(catalog, verifier, llm, item(catalog), mode="loose")
    prompt = llm.calls[0][1][0]["content"]
    assert "POINT_1 [MAIN]: Symbols declared" in prompt and "POINT_2 [SECONDARY]: Constants declared" in prompt
    assert "OVERALL is YES only if all MAIN points are YES" in prompt
    audit(catalog, verifier, llm, item(catalog), mode="strict")
    assert "[MAIN]" not in llm.calls[-1][1][0]["content"]


def test_malformed_reply_is_retried_once_then_left_undecided(catalog, verifier):
    llm = judges_saying({"judge-a": "All good, I think it passes.",
                         "judge-b": pointwise("YES", "YES", "YES", "YES")})
    result = audit(catalog, verifier, llm, item(catalog))
    (scs,) = result.constraints
    assert scs.status == "undecided" and result.compliance == "undecided"
    assert all(p.status == "undecided" for p in scs.points)
    judge_a_calls = [msgs for model, msgs in llm.calls if model == "judge-a"]
    assert len(judge_a_calls) == 2
    assert judge_a_calls[1][-2] == {"role": "assistant", "content": "All good, I think it passes."}
    assert "did not follow the required output format" in judge_a_calls[1][-1]["content"]
    assert result.judge_failures == 4
    # A NO from the other judge still fails the point: undecided never hides a failure.
    llm = judges_saying({"judge-a": "garbled", "judge-b": pointwise("YES", "YES", "YES", "NO")})
    assert audit(catalog, verifier, llm, item(catalog)).compliance == "fail"


def test_a_rule_failure_decides_without_calling_judges(catalog, verifier):
    llm = judges_saying({"judge-a": pointwise("YES", "YES", "YES", "YES"),
                         "judge-b": pointwise("YES", "YES", "YES", "YES")})
    bare = "v = 10.0/2.0 = 5.0 m/s\n\nFinal Answer: 5.0 m/s"  # nothing declares the symbols
    result = audit(catalog, verifier, llm, item(catalog), answer=bare)
    (scs,) = result.constraints
    assert scs.status == "fail"
    assert scs.points[0].decided_by == "rule" and scs.points[0].reason.startswith("missing evidence")
    assert {p.status for p in scs.points[1:]} == {"skipped"}
    assert not [c for c in llm.calls if not is_correctness_prompt(c[1])]


def test_correctness_by_rule_needs_no_judge(catalog, verifier):
    llm = judges_saying({"judge-a": pointwise("YES", "YES", "YES", "YES"),
                         "judge-b": pointwise("YES", "YES", "YES", "YES")})
    result = audit(catalog, verifier, llm, item(catalog, target={"value": 5.0, "unit": "m/s"}))
    assert result.correctness.status == "pass" and result.correctness.decided_by == "rule"
    assert not [c for c in llm.calls if is_correctness_prompt(c[1])]
    wrong = audit(catalog, verifier, llm, item(catalog, target={"value": 4.0, "unit": "m/s"}))
    assert wrong.correctness.status == "fail" and wrong.compliance_gated == "fail"
    assert wrong.compliance == "pass"


def test_correctness_by_both_judges_when_the_rule_cannot_decide(catalog, verifier):
    points = {"judge-a": pointwise("YES", "YES", "YES", "YES"), "judge-b": pointwise("YES", "YES", "YES", "YES")}
    split = judges_saying(points, {"judge-a": "VERDICT: YES", "judge-b": "**Verdict:** NO\nREASON: wrong sign"})
    result = audit(catalog, verifier, split, item(catalog, reference="v = 5.0 m/s"))
    assert result.correctness.status == "fail" and result.correctness.decided_by == "judges"
    assert "wrong sign" in result.correctness.reason
    agree = judges_saying(points, {"judge-a": "VERDICT: YES", "judge-b": "VERDICT: YES"})
    assert audit(catalog, verifier, agree, item(catalog, reference="v = 5.0 m/s")).correctness.status == "pass"


def test_without_judges_nothing_undecidable_passes(catalog, verifier):
    auditor = SciIFAuditor(catalog, verifier, mode="strict")
    result = auditor.audit(item(catalog, reference="v = 5.0 m/s"), ModelAnswer("q1", "m", ANSWER))
    (scs,) = result.constraints
    assert scs.status == "undecided" and result.compliance == "undecided"
    assert {p.status for p in scs.points} == {"undecided"}
    assert result.correctness.status == "undecided" and result.reward is None


def test_multi_constraint_compliance_is_the_and(catalog, verifier):
    def reply(model, messages):
        content = messages[0]["content"]
        if is_correctness_prompt(messages):
            return "VERDICT: YES"
        n = sum(1 for line in content.splitlines() if line.startswith("POINT_") and "YES or NO" in line)
        verdicts = ["YES"] * n
        if "Constraint name:\nVariable Naming Consistency" in content and model == "judge-b":
            verdicts[0] = "NO"
        return pointwise(*verdicts)
    llm = ScriptedLLM(reply)
    two = item(catalog, names=("Symbols & Constants Standardization", "Variable Naming Consistency"),
               target={"value": 5.0, "unit": "m/s"})
    result = audit(catalog, verifier, llm, two)
    assert [c.status for c in result.constraints] == ["pass", "fail"]
    assert result.compliance == "fail" and result.k == 2
    # R = 0.7 * R_terminology + 0.3 * 1, R_terminology = (1 * 1 + 1 * 0) / 2
    assert result.reward == pytest.approx(0.7 * 0.5 + 0.3)


def test_answer_generation_uses_the_papers_prompt(catalog):
    llm = ScriptedLLM(lambda model, messages: "an answer")
    the_item = item(catalog, names=("Units Standard", "Numerical Methods"))
    assert generate_answer(llm, "openai/solver", the_item) == "an answer"
    prompt = llm.calls[0][1][0]["content"]
    assert prompt.startswith("You are solving a university-level scientific problem.")
    assert "Enabled constraints:\nUnits Standard, Numerical Methods" in prompt
    assert "Required evidence (MUST appear; missing any item => non-compliant):" in prompt
    assert "Auditor's note" not in prompt  # the judge-only point stays out of the answer prompt
    assert prompt.rstrip().endswith("Answer:")
