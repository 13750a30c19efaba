from __future__ import annotations

from scicustom.adapters.litellm_llm import LiteLLMAdapter
from scicustom.adapters.llm_response_cache import LLMResponseCache
from scicustom.core.build.llm_judges import (
    LLMMCQWriter,
    LLMRelevanceJudge,
    LLMUnitRanker,
    parse_ranked_tags,
    parse_yes_no,
)
from scicustom.core.build.mcq import parse_llm_mcq
from scicustom.core.corpus_item import make_item
from scicustom.core.requirement import requirement_from_text
from scicustom.core.units import KnowledgeUnit

UNITS = [KnowledgeUnit("u1", "Virology", "medicine"), KnowledgeUnit("u2", "Viral replication", "medicine"),
         KnowledgeUnit("u3", "Organic chemistry", "chemistry"), KnowledgeUnit("u4", "Immune system", "medicine")]


def _llm(tmp_path, server):
    return LiteLLMAdapter(LLMResponseCache(tmp_path / "c.sqlite"), api_base=server.api_base, api_key="t",
                          backoff_s=0)


def test_parse_ranked_tags_fuzzy_matches_and_drops_unknowns():
    reply = "1. Viral Replication\n2. **Virolgy**\n- Quantum chromodynamics\n3) immune system\n4. Virology"
    assert parse_ranked_tags(reply, UNITS) == ["u2", "u1", "u4"]


def test_parse_comma_separated_list():
    assert parse_ranked_tags("Virology, Immune system, Viral replication, Organic chemistry", UNITS) == [
        "u1", "u4", "u2", "u3"]


def test_yes_no():
    assert parse_yes_no("Yes.") is True and parse_yes_no("no, it is about law") is False
    assert parse_yes_no("maybe") is None


def test_llm_ranker_sends_paper_prompt_sorted_by_frequency(tmp_path, recorded_llm):
    recorded_llm.rules.append(("Candidate Tags", "Viral replication\nVirology"))
    ranker = LLMUnitRanker(_llm(tmp_path, recorded_llm), "openai/judge-a", {"u1": 50, "u2": 3, "u3": 9, "u4": 80})
    req = requirement_from_text("virus replication cycles")
    assert ranker.rank_units(req, UNITS) == ["u2", "u1"]
    user = recorded_llm.calls[0]["messages"][1]["content"]
    assert "Viral replication, Organic chemistry, Virology, Immune system" in user
    assert recorded_llm.calls[0]["messages"][0]["content"].startswith("You are an expert in virus replication")


def test_llm_relevance_and_mcq_writer(tmp_path, recorded_llm):
    recorded_llm.rules.append(("Is this item relevant", "Yes"))
    recorded_llm.rules.append(("raw problem", '{"query": "Q?\\nA. w\\nB. x\\nC. y\\nD. z", "answer": "C"}'))
    llm = _llm(tmp_path, recorded_llm)
    item = make_item("user", "CC0", "", "What encloses the genome?", [], None, "capsid")
    req = requirement_from_text("virology")
    assert LLMRelevanceJudge(llm, "openai/judge-b").is_relevant(req, item) is True
    reply = LLMMCQWriter(llm, "openai/writer").write(req, item)
    assert parse_llm_mcq(reply) == ("Q?\nA. w\nB. x\nC. y\nD. z", "C")
