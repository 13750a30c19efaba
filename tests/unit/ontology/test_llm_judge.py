from __future__ import annotations

import pytest

from scicustom.adapters.litellm_llm import LiteLLMAdapter
from scicustom.adapters.llm_response_cache import LLMResponseCache
from scicustom.core.ontology.dag import NodeStats, OntologyNode
from scicustom.core.ontology.granularity import (
    GRANULARITY_SYSTEM,
    Granularity,
    NodeContext,
    granularity_messages,
    parse_granularity,
)
from scicustom.core.ontology.llm_judge import LLMGranularityJudge
from scicustom.core.ontology.unit_selection import select_units
from tests.unit.ontology.dag_builders import fan, make_dag

C, M, F = Granularity.COARSE, Granularity.MODERATE, Granularity.FINE


@pytest.mark.parametrize(("text", "label"), [
    ("(moderate); Explanation: a chapter-sized topic.", M),
    ("(too coarse); Explanation: too broad.", C),
    ("(too fine); Explanation: a single cell type.", F),
    ("Output: **(Too Coarse)** because it is vague", C),
    ("( too-fine )", F),
    ("Moderate. It is like a textbook chapter.", M),
    ("The term is too coarse for a subfield.", C),
    ("It is not too fine; it is moderate.", M),
    ("Answer: too_fine", F),
    ("(moderately broad) hmm, I think it is too coarse", C),
])
def test_parse_granularity_reads_the_label(text, label):
    assert parse_granularity(text) is label


@pytest.mark.parametrize("text", ["", "I cannot answer.", "refined moderately coarsely", "(unsure)"])
def test_parse_granularity_returns_none_without_a_label(text):
    assert parse_granularity(text) is None


def test_prompt_is_the_papers_appendix_g():
    messages = granularity_messages("organic chemistry")
    assert messages[0] == {"role": "system", "content": GRANULARITY_SYSTEM}
    user = messages[1]["content"]
    assert user.startswith("Determine whether the given term is a suitable scientific subfield")
    assert "Input: term: b-lymphocyte\nOutput: (too fine);" in user
    assert user.endswith("Input: term: organic chemistry.")


def _judge(tmp_path, server):
    llm = LiteLLMAdapter(LLMResponseCache(tmp_path / "llm.sqlite"), api_base=server.api_base,
                         api_key="test", backoff_s=0.0)
    return LLMGranularityJudge(llm, "openai/judge-a")


def _context(label):
    return NodeContext(OntologyNode(label, label, "t"), NodeStats(20, 2, 1, 1, 3))


def test_llm_judge_labels_nodes_through_the_port(tmp_path, recorded_llm):
    recorded_llm.rules.append(("term: chemistry.", "(too coarse); Explanation: a whole science."))
    recorded_llm.rules.append(("term: ketone.", "(moderate); Explanation: a chapter."))
    judge = _judge(tmp_path, recorded_llm)
    assert judge.judge(_context("chemistry")) is C
    assert judge.judge(_context("ketone")) is M
    body = recorded_llm.calls[0]
    assert body["model"] == "judge-a" and body["temperature"] == 0.0 and body["max_tokens"] == 256
    assert body["messages"][0]["content"] == GRANULARITY_SYSTEM


def test_malformed_answer_gets_one_retry(tmp_path, recorded_llm):
    recorded_llm.rules.append(("Answer with exactly one of", "(too fine)"))
    recorded_llm.rules.append(("term: thing.", "Well, that depends on the context..."))
    judge = _judge(tmp_path, recorded_llm)
    assert judge.judge(_context("thing")) is F
    assert len(recorded_llm.calls) == 2
    retry = recorded_llm.calls[1]["messages"]
    assert retry[-2] == {"role": "assistant", "content": "Well, that depends on the context..."}
    assert judge.unparsed == []


def test_answer_without_label_twice_prunes_and_is_recorded(tmp_path, recorded_llm):
    recorded_llm.default = "<<garbled>>"
    judge = _judge(tmp_path, recorded_llm)
    assert judge.judge(_context("mystery")) is F
    assert judge.unparsed == [("mystery", "<<garbled>>")]


def test_algorithm_1_with_the_llm_judge_and_its_cache(tmp_path, recorded_llm):
    recorded_llm.rules += [("term: root.", "(too coarse)"), ("term: chem.", "(moderate)"),
                           ("term: bio.", "Output: (too fine); narrow")]
    dag = make_dag([("chem", "root"), ("bio", "root"), *fan("chem", 10, "c"), *fan("bio", 10, "b")])
    result = select_units([dag], _judge(tmp_path, recorded_llm))
    assert result.unit_names() == ["chem"]
    assert len(recorded_llm.calls) == 3
    # A second run reads every answer from the response cache: zero new calls.
    again = select_units([dag], _judge(tmp_path, recorded_llm))
    assert again.unit_names() == ["chem"] and len(recorded_llm.calls) == 3
