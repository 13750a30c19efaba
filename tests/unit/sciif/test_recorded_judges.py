"""The SciIF judges through the real LLM adapter against the recorded OpenAI-compatible server."""

from __future__ import annotations

import dataclasses

from scicustom.adapters.litellm_llm import LiteLLMAdapter
from scicustom.adapters.llm_response_cache import LLMResponseCache
from scicustom.core.sciif.audit import SciIFAuditor
from scicustom.core.sciif.items import ModelAnswer, SciIFItem
from tests.unit.sciif.conftest import pointwise

JUDGES = ("openai/judge-a", "openai/judge-b")
ANSWER = ("Let v denote the speed in m/s, where d = 10.0 m and t = {t} s. Then v = d/t.\n\n"
          "Final Answer: v = {v} m/s")


def adapter(tmp_path, server):
    return LiteLLMAdapter(LLMResponseCache(tmp_path / "llm.sqlite"), api_base=server.api_base, api_key="test",
                          backoff_s=0.0)


def items_and_answers(catalog, n=3):
    items, answers = {}, []
    for i in range(n):
        item = SciIFItem(id=f"q{i}", question=f"A cart covers 10.0 m in {i + 1}.0 s. Find its speed.",
                         constraints=catalog.resolve_list(["Symbols & Constants Standardization"]),
                         subject="physics", reference_answer=f"v = {10 / (i + 1):.2f} m/s")
        items[item.id] = item
        answers.append(ModelAnswer(item.id, "solver", ANSWER.format(t=f"{i + 1}.0", v=f"{10 / (i + 1):.2f}")))
    return items, answers


def test_malformed_judge_output_is_retried_and_then_read(catalog, verifier, tmp_path, recorded_llm):
    recorded_llm.rules.append(("did not follow the required output format", pointwise("YES", "YES", "YES", "YES")))
    recorded_llm.rules.append(("Constraint name:", "Looks compliant to me overall."))
    recorded_llm.rules.append(("equivalent to the reference answer", "VERDICT: YES\nREASON: [-]"))
    auditor = SciIFAuditor(catalog, verifier, llm=adapter(tmp_path, recorded_llm), judges=JUDGES)
    items, answers = items_and_answers(catalog, n=1)
    result = auditor.audit(items["q0"], answers[0])
    assert result.compliance == "pass" and result.judge_failures == 0
    constraint_calls = [c for c in recorded_llm.calls if "Constraint name:" in c["messages"][0]["content"]]
    assert len(constraint_calls) == 4  # two judges, each asked twice
    retries = [c for c in constraint_calls if len(c["messages"]) == 3]
    assert sorted(c["model"] for c in retries) == ["judge-a", "judge-b"]
    assert retries[0]["messages"][1] == {"role": "assistant", "content": "Looks compliant to me overall."}
    assert all(c["temperature"] == 0 and c["max_tokens"] == 4096 for c in recorded_llm.calls)


def test_output_that_stays_malformed_leaves_points_undecided(catalog, verifier, tmp_path, recorded_llm):
    recorded_llm.rules.append(("Constraint name:", "POINT_1: YES\nPOINT_2: maybe"))
    recorded_llm.rules.append(("did not follow", "POINT_1: YES\nPOINT_3: YES"))
    recorded_llm.rules.append(("equivalent to the reference answer", "They look the same."))
    auditor = SciIFAuditor(catalog, verifier, llm=adapter(tmp_path, recorded_llm), judges=JUDGES)
    items, answers = items_and_answers(catalog, n=1)
    result = auditor.audit(items["q0"], answers[0])
    (scs,) = result.constraints
    # The retry's partial reply still counts for the points it gives.
    assert [p.status for p in scs.points] == ["pass", "undecided", "pass", "undecided"]
    assert scs.status == "undecided" and result.correctness.status == "undecided"
    assert result.judge_failures == 2 * 2 + 2


def test_a_rerun_makes_no_new_calls_and_resumes_after_interruption(catalog, verifier, tmp_path, recorded_llm):
    recorded_llm.rules.append(("Constraint name:", pointwise("YES", "YES", "NO", "YES")))
    recorded_llm.rules.append(("equivalent to the reference answer", "VERDICT: YES"))
    items, answers = items_and_answers(catalog, n=3)
    first = SciIFAuditor(catalog, verifier, llm=adapter(tmp_path, recorded_llm), judges=JUDGES)
    first.audit_many(items, answers[:2], workers=2)  # "killed" after two items
    calls_after_interruption = len(recorded_llm.calls)
    assert calls_after_interruption == 2 * 2 * 2  # items x judges x (constraint + correctness)

    resumed_llm = adapter(tmp_path, recorded_llm)
    resumed = SciIFAuditor(catalog, verifier, llm=resumed_llm, judges=JUDGES).audit_many(items, answers)
    assert len(recorded_llm.calls) == calls_after_interruption + 4  # only the third item is new
    assert resumed_llm.usage.cached_calls == 8

    again_llm = adapter(tmp_path, recorded_llm)
    again = SciIFAuditor(catalog, verifier, llm=again_llm, judges=JUDGES).audit_many(items, answers, workers=1)
    assert len(recorded_llm.calls) == calls_after_interruption + 4
    assert again_llm.usage.calls == 0 and again_llm.usage.cached_calls == 12
    assert [dataclasses.asdict(a) for a in again] == [dataclasses.asdict(a) for a in resumed]
    assert {a.compliance for a in again} == {"fail"}  # point_3 NO fails strict mode


def test_server_errors_are_retried_by_the_adapter(catalog, verifier, tmp_path, recorded_llm):
    recorded_llm.rules.append(("Constraint name:", pointwise("YES", "YES", "YES", "YES")))
    recorded_llm.rules.append(("equivalent to the reference answer", "VERDICT: NO\nREASON: [value differs]"))
    recorded_llm.fail_next = 2
    auditor = SciIFAuditor(catalog, verifier, llm=adapter(tmp_path, recorded_llm), judges=JUDGES)
    items, answers = items_and_answers(catalog, n=1)
    result = auditor.audit(items["q0"], answers[0])
    assert result.compliance == "pass" and result.correctness.status == "fail"
    assert result.compliance_gated == "fail"
    assert len(recorded_llm.calls) == 2 + 4
