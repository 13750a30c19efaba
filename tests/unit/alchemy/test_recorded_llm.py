"""The AlchemyBench extractor and judge through the real LLM adapter against the recorded server."""

from __future__ import annotations

from scicustom.adapters.litellm_llm import LiteLLMAdapter
from scicustom.adapters.llm_response_cache import LLMResponseCache
from scicustom.core.alchemy.extraction import Paper, RecipeExtractor
from scicustom.core.alchemy.judge import JudgeInput, RecipeJudge
from scicustom.core.alchemy.prediction import PredictionTarget
from tests.unit.alchemy.samples import CLASSIFICATION_REPLY, EXTRACTION_REPLY, PAPER, judge_reply


def adapter(tmp_path, server):
    return LiteLLMAdapter(LLMResponseCache(tmp_path / "llm.sqlite"), api_base=server.api_base, api_key="test",
                          backoff_s=0.0)


def test_extraction_classifies_then_extracts(tmp_path, recorded_llm):
    recorded_llm.rules.append(("Analyze the given scientific text", CLASSIFICATION_REPLY))
    recorded_llm.rules.append(("extract ONLY the explicitly stated synthesis information", EXTRACTION_REPLY))
    extractor = RecipeExtractor(adapter(tmp_path, recorded_llm), "openai/extractor")
    papers = [Paper("zhao2020", PAPER), Paper("stub", "too short")]
    done, short = extractor.extract_all(papers, workers=2)
    assert done.status == "extracted" and done.recipe is not None and "NH4VO3" in done.recipe.materials
    assert done.classification is not None and done.classification.process_category == "Hydrothermal"
    assert short.status == "too_short"
    assert len(recorded_llm.calls) == 2
    assert recorded_llm.calls[1]["messages"][0]["content"].endswith("Scientific Paper:\n" + PAPER)


def test_extraction_stops_when_the_classifier_finds_no_recipe(tmp_path, recorded_llm):
    recorded_llm.rules.append(("Analyze the given scientific text", "1. Synthesis Recipe: NO"))
    result = RecipeExtractor(adapter(tmp_path, recorded_llm), "openai/extractor").extract(Paper("rev", PAPER))
    assert result.status == "no_recipe" and result.recipe is None and len(recorded_llm.calls) == 1


def test_paper_text_is_cut_at_50000_characters(tmp_path, recorded_llm):
    recorded_llm.rules.append(("extract ONLY", EXTRACTION_REPLY))
    extractor = RecipeExtractor(adapter(tmp_path, recorded_llm), "openai/extractor", classify=False)
    extractor.extract(Paper("long", "x" * 60_000 + "TAIL"))
    assert recorded_llm.calls[0]["messages"][0]["content"].endswith("x" * 100)


def judge_input(i=0):
    return JudgeInput(PredictionTarget(f"p{i}", f"ZnO nanorods {i}", "## Materials\n- zinc nitrate"),
                      f"## Materials\n- zinc acetate {i}")


def test_malformed_judge_reply_gets_one_retry(tmp_path, recorded_llm):
    recorded_llm.rules.append(("could not be read", judge_reply()))
    recorded_llm.rules.append(("Please evaluate the following", "Overall I would give it a 4."))
    judgement = RecipeJudge(adapter(tmp_path, recorded_llm), "openai/judge").judge(judge_input())
    assert judgement.attempts == 2 and judgement.scores is not None
    assert judgement.scores.overall == (4.0 + 3.5 + 4.5 + 3.0 + 4.0 + 3.5 + 2.5) / 7
    retry = recorded_llm.calls[1]["messages"]
    assert [m["role"] for m in retry] == ["system", "user", "assistant", "user"]
    assert retry[2]["content"] == "Overall I would give it a 4."


def test_judge_reply_that_stays_malformed(tmp_path, recorded_llm):
    recorded_llm.rules.append(("could not be read", '```json\n{"materials_appropriateness_score": 9}\n```'))
    recorded_llm.rules.append(("Please evaluate the following", "no scores today"))
    judgement = RecipeJudge(adapter(tmp_path, recorded_llm), "openai/judge").judge(judge_input())
    assert judgement.scores is None and judgement.attempts == 2
    assert judgement.problem == "materials_appropriateness_score 9 is outside 1-5"


def test_rerun_after_interruption_repeats_no_call(tmp_path, recorded_llm):
    recorded_llm.rules.append(("Please evaluate the following", judge_reply()))
    items = [judge_input(i) for i in range(5)]
    RecipeJudge(adapter(tmp_path, recorded_llm), "openai/judge").judge_all(items[:3])  # interrupted
    assert len(recorded_llm.calls) == 3
    llm = adapter(tmp_path, recorded_llm)
    judgements = RecipeJudge(llm, "openai/judge").judge_all(items, workers=2)
    assert len(recorded_llm.calls) == 5 and llm.usage.cached_calls == 3
    assert all(j.scores is not None for j in judgements)
