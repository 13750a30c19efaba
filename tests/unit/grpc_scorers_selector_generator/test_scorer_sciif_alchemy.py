"""ScorerService.AuditInstructionFollowing and JudgeRecipes over a loopback channel: the REPORT.json of
`scicustom score sciif` / `score alchemy judge` for the same rows, LLM calls through the LLM port."""

from __future__ import annotations

import json

import grpc
import pytest

from scicustom.cli import main
from scicustom.scorers.servicer import binding
from scicustom.scorers.v1 import scorers_pb2 as pb
from scicustom.scorers.v1 import scorers_pb2_grpc as pb_grpc
from tests.support.grpc_loopback import invalid_field, loopback, rpc_error
from tests.unit.alchemy.samples import judge_reply
from tests.unit.grpc_scorers_selector_generator.corpus_world import empty_context
from tests.unit.sciif.conftest import pointwise

SYMBOLS = "Symbols & Constants Standardization"
NAMING = "Variable Naming Consistency"
GOOD = "Let v denote the speed in m/s, where d is the distance. Then v = d/t = {v} m/s.\n\nFinal Answer: v = {v} m/s"
ITEMS = [
    pb.SciIFItem(id="kin-1", subject="physics", question="A cart covers 10.0 m in 2.0 s. Find its speed.",
                 constraints=[SYMBOLS], final_answer=[pb.FinalAnswerTarget(value=5.0, unit="m/s")]),
    pb.SciIFItem(id="kin-2", subject="physics", question="question: 12.0 m in 3.0 s; the speed?",
                 constraints=[SYMBOLS, NAMING], reference_answer="v = 4.0 m/s"),
]
# The same items as the CLI reads them, the second in the release's own row format.
ITEM_ROWS = [
    {"id": "kin-1", "subject": "physics", "question": "A cart covers 10.0 m in 2.0 s. Find its speed.",
     "constraints": [SYMBOLS], "final_answer": {"value": 5.0, "unit": "m/s"}},
    {"id": "kin-2", "subject": "physics", "question_with_constraints": "question: 12.0 m in 3.0 s; the speed?",
     "constraints": f"{SYMBOLS}、{NAMING}", "answer": "v = 4.0 m/s"},
]
ANSWERS = [("kin-1", "alpha", GOOD.format(v="5.0")), ("kin-2", "alpha", GOOD.format(v="4.0")),
           ("kin-1", "beta", GOOD.format(v="5.5"))]
JUDGE_SCORES = {0: (5.0, 4.5, 4.5, 4.0, 4.5, 4.0, 4.0), 1: (3.0, 3.0, 2.5, 2.0, 3.0, 3.0, 2.0),
                2: (4.0, 4.0, 3.5, 3.5, 4.0, 3.5, 3.0)}


def write_jsonl(path, rows):
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


@pytest.fixture
def llm_stub(tmp_path, monkeypatch, recorded_llm):
    """A scorer service on the recorded LLM server; the CLI runs beside it with a cache of its own."""
    monkeypatch.setenv("SCICUSTOM_LLM_CACHE_DIR", str(tmp_path / "cli-cache"))
    monkeypatch.setenv("TEST_LLM_KEY", "test")
    ctx = empty_context(tmp_path, llm_api_base=recorded_llm.api_base, llm_api_key="test",
                        llm_cache_dir=tmp_path / "service-cache")
    with loopback([binding(ctx)]) as channel:
        yield pb_grpc.ScorerServiceStub(channel), ["--api-base", recorded_llm.api_base, "--api-key-env", "TEST_LLM_KEY"]


@pytest.fixture(scope="module")
def offline_stub(tmp_path_factory):
    with loopback([binding(empty_context(tmp_path_factory.mktemp("scorers")))]) as channel:
        yield pb_grpc.ScorerServiceStub(channel)


def sciif_request(**options):
    return pb.AuditInstructionFollowingRequest(
        items=ITEMS, answers=[pb.SciIFAnswer(item_id=i, model=m, answer=a) for i, m, a in ANSWERS],
        options=pb.SciIFOptions(**options))


def sciif_cli(tmp_path, *flags):
    items = write_jsonl(tmp_path / "items.jsonl", ITEM_ROWS)
    answers = write_jsonl(tmp_path / "answers.jsonl", [{"id": i, "model": m, "answer": a} for i, m, a in ANSWERS])
    out = tmp_path / "sciif.json"
    assert main(["score", "sciif", "--items", str(items), "--answers", str(answers), "--out", str(out), *flags]) == 0
    return out.read_text(encoding="utf-8")


def test_rules_only_audit_equals_the_cli_report(offline_stub, tmp_path):
    response = offline_stub.AuditInstructionFollowing(sciif_request(), timeout=30)
    assert response.report_json == sciif_cli(tmp_path)
    assert [(a.item_id, a.model) for a in response.audits] == [(i, m) for i, m, _ in ANSWERS]
    beta = response.audits[2]
    assert beta.correctness == pb.AUDIT_STATUS_FAIL  # 5.5 m/s against 5.0 m/s, decided by the rule
    assert response.audits[0].correctness == pb.AUDIT_STATUS_PASS
    assert response.audits[0].compliance == pb.AUDIT_STATUS_UNDECIDED  # no judge: never passed
    assert not response.audits[0].HasField("reward")
    alpha = response.models[0]
    assert alpha.model == "alpha" and alpha.items == 2
    assert (alpha.correctness.passed, alpha.correctness.undecided, alpha.correctness.rate) == (1, 1, 0.5)
    assert [c.name for c in response.audits[1].constraints] == [SYMBOLS, NAMING]
    assert response.usage == pb.LLMUsage() and json.loads(response.report_json)["usage"] is None


def test_judged_audit_equals_the_cli_report(llm_stub, tmp_path, recorded_llm):
    stub, llm_flags = llm_stub
    recorded_llm.rules.append(("Constraint name:\nSymbols", pointwise("YES", "YES", "YES", "YES")))
    recorded_llm.rules.append(("Constraint name:\nVariable", pointwise("YES", "NO", "YES")))
    recorded_llm.rules.append(("equivalent to the reference answer", "VERDICT: YES"))
    judges = ["openai/judge-a", "openai/judge-b"]
    response = stub.AuditInstructionFollowing(sciif_request(judges=judges, workers=2), timeout=60)
    assert len(recorded_llm.calls) == 2 * (4 + 1)  # judges x (four constraint audits + one correctness audit)
    assert (response.usage.calls, response.usage.cached_calls) == (10, 0)
    assert response.report_json == sciif_cli(tmp_path, "--judges", *judges, "--workers", "2", *llm_flags)
    alpha = response.models[0]
    assert alpha.single_constraint.passed == 1 and alpha.multi_constraint.failed == 1
    assert response.audits[0].compliance == pb.AUDIT_STATUS_PASS and response.audits[0].HasField("reward")
    again = stub.AuditInstructionFollowing(sciif_request(judges=judges, workers=2), timeout=60)
    assert (again.usage.calls, again.usage.cached_calls) == (0, 10)  # the response cache answered


def test_generate_then_audit(llm_stub, recorded_llm):
    stub, _ = llm_stub
    recorded_llm.rules.append(("You are solving a university-level scientific problem.", GOOD.format(v="5.0")))
    request = pb.AuditInstructionFollowingRequest(items=ITEMS[:1], options=pb.SciIFOptions(generate_with="openai/s"))
    response = stub.AuditInstructionFollowing(request, timeout=60)
    assert [(g.item_id, g.model, g.answer) for g in response.generated] == [("kin-1", "openai/s", GOOD.format(v="5.0"))]
    assert response.audits[0].correctness == pb.AUDIT_STATUS_PASS and response.usage.calls == 1


def test_sciif_bad_requests_name_the_field(offline_stub):
    call = offline_stub.AuditInstructionFollowing
    unknown = sciif_request()
    unknown.answers[1].item_id = "kin-9"
    assert invalid_field(lambda: call(unknown, timeout=5)) == "answers[1].item_id: no item with id 'kin-9'"
    bad_constraint = sciif_request()
    bad_constraint.items[1].constraints.append("Poetry Meter")
    assert invalid_field(lambda: call(bad_constraint, timeout=5)) == \
        "items[1].constraints: unknown SciIF constraint 'Poetry Meter'"
    bad_choice = sciif_request()
    bad_choice.items[0].final_answer.append(pb.FinalAnswerTarget(choice="CD"))
    assert invalid_field(lambda: call(bad_choice, timeout=5)) == "items[0].final_answer[1].choice: expected one letter"
    empty_target = sciif_request()
    empty_target.items[0].final_answer.append(pb.FinalAnswerTarget(unit="m"))
    assert invalid_field(lambda: call(empty_target, timeout=5)) == \
        "items[0].final_answer[1]: needs one of value, range, expression, choice"
    twice = sciif_request()
    twice.answers.append(pb.SciIFAnswer(item_id="kin-1", model="alpha", answer="again"))
    assert invalid_field(lambda: call(twice, timeout=5)) == \
        "answers[3]: second answer of model 'alpha' to item 'kin-1' (answers[0])"
    no_answers = pb.AuditInstructionFollowingRequest(items=ITEMS)
    assert invalid_field(lambda: call(no_answers, timeout=5)) == \
        "answers: is empty; give answers or options.generate_with"
    assert invalid_field(lambda: call(sciif_request(workers=17), timeout=5)) == \
        "options.workers: 17 is above the limit 16"


def predictions():
    rows = [("p0", "m", 0), ("p1", "m", None), ("p2", "other", 5)]
    return [pb.RecipePrediction(id=key, contribution=f"target {i}", recipe="## Materials\n- zinc nitrate\n- water",
                                prediction=f"## Materials\n- zinc acetate variant {i}\n- water", model=model,
                                **({"top_k": k} if k is not None else {}))
            for i, (key, model, k) in enumerate(rows)]


def prediction_rows():
    rows = []
    for p in predictions():
        row = {"id": p.id, "contribution": p.contribution, "recipe": p.recipe, "prediction": p.prediction,
               "model": p.model}
        if p.HasField("top_k"):
            row["top_k"] = p.top_k
        rows.append(row)
    return rows


def test_recipe_judge_equals_the_cli_report(llm_stub, tmp_path, recorded_llm):
    stub, llm_flags = llm_stub
    for i, scores in JUDGE_SCORES.items():
        recorded_llm.rules.append((f"variant {i}", judge_reply(scores=scores)))
    ratings = [pb.ExpertRating(id=f"p{i}", rater=rater, overall=overall + offset)
               for rater, offset in (("e1", 0.0), ("e2", 0.5)) for i, overall in enumerate((4.5, 2.5, 4.0))]
    ratings.append(pb.ExpertRating(id="p0", rater="e3", **dict.fromkeys(
        ("materials_appropriateness", "equipment_appropriateness", "procedure_completeness", "procedure_similarity",
         "procedure_feasibility", "characterization_appropriateness", "characterization_similarity"), 4.0)))
    request = pb.JudgeRecipesRequest(predictions=predictions(), judge="openai/judge", expert_ratings=ratings,
                                     workers=2)
    response = stub.JudgeRecipes(request, timeout=60)
    pred = write_jsonl(tmp_path / "pred.jsonl", prediction_rows())
    rating_rows = [{"id": r.id, "rater": r.rater, "group": r.group,
                    **{f.name: v for f, v in r.ListFields() if f.name not in ("id", "rater", "group")}}
                   for r in ratings]
    rated = write_jsonl(tmp_path / "ratings.jsonl", rating_rows)
    out = tmp_path / "alchemy.json"
    assert main(["score", "alchemy", "judge", "--predictions", str(pred), "--judge", "openai/judge", "--out", str(out),
                 "--expert-ratings", str(rated), "--workers", "2", *llm_flags]) == 0
    assert response.report_json == out.read_text(encoding="utf-8")
    assert [(j.id, j.group) for j in response.judgements] == [("p0", "m (K=0)"), ("p1", "m"), ("p2", "other (K=5)")]
    first = response.judgements[0]
    assert dict(first.criteria)["materials_appropriateness"] == 5.0 and first.judge_overall == 3.5
    assert first.overall == pytest.approx(sum(JUDGE_SCORES[0]) / 7)
    assert (response.scored, response.malformed, response.retried) == (3, 0, 0)
    assert response.overall.n == 3 and response.overall.mean == pytest.approx(
        sum(sum(s) / 7 for s in JUDGE_SCORES.values()) / 3)
    assert response.usage.calls == 3
    assert json.loads(response.report_json)["agreement"]["all"]["raters"] == ["e1", "e2", "e3"]


def test_malformed_judge_replies_are_retried_and_reported(llm_stub, recorded_llm):
    stub, _ = llm_stub
    recorded_llm.default = "The recipe looks fine; I would give it a good score."
    request = pb.JudgeRecipesRequest(predictions=predictions()[:1], judge="openai/judge")
    response = stub.JudgeRecipes(request, timeout=60)
    (judgement,) = response.judgements
    assert judgement.attempts == 2 and judgement.problem == "missing materials_appropriateness_score"
    assert not judgement.HasField("overall") and dict(judgement.criteria) == {}
    assert (response.scored, response.malformed, response.retried) == (0, 1, 1)
    assert response.usage.calls == 2 and not response.overall.HasField("mean")


def test_an_llm_that_stays_down_is_unavailable(tmp_path, recorded_llm):
    ctx = empty_context(tmp_path, llm_api_base=recorded_llm.api_base, llm_api_key="test", llm_max_retries=0)
    recorded_llm.fail_next = 100
    request = pb.JudgeRecipesRequest(predictions=predictions()[:1], judge="openai/judge")
    with loopback([binding(ctx)]) as channel:
        error = rpc_error(lambda: pb_grpc.ScorerServiceStub(channel).JudgeRecipes(request, timeout=60))
    assert error.code() == grpc.StatusCode.UNAVAILABLE
    assert error.details().startswith("an LLM call failed after its retries")


def test_alchemy_bad_requests_name_the_field(offline_stub):
    call = offline_stub.JudgeRecipes
    assert invalid_field(lambda: call(pb.JudgeRecipesRequest(predictions=predictions()), timeout=5)) == \
        "judge: is empty"
    no_recipe = predictions()
    no_recipe[2].recipe = " "
    assert invalid_field(lambda: call(pb.JudgeRecipesRequest(predictions=no_recipe, judge="j"), timeout=5)) == \
        "predictions[2].recipe: is empty"
    twice = predictions()
    twice[1].prediction_id = "p0"
    assert invalid_field(lambda: call(pb.JudgeRecipesRequest(predictions=twice, judge="j"), timeout=5)).startswith(
        "predictions[1].prediction_id: duplicate prediction 'p0' (predictions[0])")
    stray = pb.ExpertRating(id="p9", rater="e1", overall=3.0)
    assert invalid_field(lambda: call(pb.JudgeRecipesRequest(predictions=predictions(), judge="j",
                                                             expert_ratings=[stray]), timeout=5)) == \
        "expert_ratings[0].id: 'p9' is not the key of a prediction in the request"
    partial = pb.ExpertRating(id="p0", rater="e1", materials_appropriateness=3.0)
    assert invalid_field(lambda: call(pb.JudgeRecipesRequest(predictions=predictions(), judge="j",
                                                             expert_ratings=[partial]), timeout=5)) == \
        "expert_ratings[0]: give 'overall' or all seven criteria"
