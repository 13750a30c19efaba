"""The LLM extractors through the LLM port, with replies recorded from the real paper: the citation
filter keeps grounded items and rejects (and keeps for audit) those citing what the paper does not say;
without a model configured, recipes and hypotheses say "needs an LLM"."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from scicustom.app.papers.llm_extractors import LLMExtractors
from scicustom.app.papers.paper_records import NEEDS_LLM, PaperKeys, paper_status
from scicustom.app.papers.paper_stages import extract_with, parse_stored, record_needs_llm
from scicustom.app.papers.submission import submit_paper_bytes
from scicustom.core.papers.formats import parse_paper
from scicustom.core.papers.llm_extraction import grounded_hypothesis, grounded_qa, qa_requests
from scicustom.ports import LLM, Completion
from tests.support.real_papers import JATS, member


class RecordedLLM(LLM):
    """Answers every prompt with the reply for the first marker found in it."""

    def __init__(self, replies: Mapping[str, str], default: str) -> None:
        self.replies, self.default, self.calls = replies, default, 0

    def complete(self, model: str, messages: Sequence[Mapping[str, str]], **params: Any) -> Completion:
        self.calls += 1
        prompt = messages[-1]["content"]
        for marker, reply in self.replies.items():
            if marker in prompt:
                return Completion(reply, model)
        return Completion(self.default, model)


def _paper():
    return parse_paper(member("pubmed", JATS[3]), JATS[3])  # Rift Valley fever in Mozambique


def test_grounded_qa_keeps_cited_items_and_rejects_invented_ones():
    paper = _paper()
    cited = next(paper.sentence_text(s) for s in paper.sentences if "Rift Valley fever" in paper.sentence_text(s))
    reply = json.dumps({"items": [
        {"question": "Which disease does the paper study?", "options": ["Rift Valley fever", "Dengue", "Malaria",
                                                                         "Cholera"],
         "answer_index": 0, "citations": [cited]},
        {"question": "Which vaccine cured the sheep?", "options": ["RVF-X1", "None", "BCG", "MMR"], "answer_index": 0,
         "citations": ["All sheep were cured by the RVF-X1 vaccine within two days."]},
        {"question": "No citation?", "options": ["a", "b"], "answer_index": 1, "citations": []},
    ]})
    kept, rejected = grounded_qa(paper, "Here you are:\n```json\n" + reply + "\n```")
    assert [k["options"][k["answer_index"]] for k in kept] == ["Rift Valley fever"]
    assert [r["reason"] for r in rejected] == ["citation not found in the paper", "no citation"]
    assert grounded_qa(paper, "no JSON at all")[1][0]["reason"] == "reply is not the asked JSON"


def test_single_and_multi_chunk_requests_cover_the_paper():
    paper = _paper()
    requests = qa_requests(paper)
    singles = [r for r in requests if r[2] is None]
    pairs = [r for r in requests if r[2] is not None]
    assert len(singles) >= 2 and len(pairs) == len(singles) - 1
    assert all(paper.text[c.start:c.end] in prompt for prompt, c, _ in singles)


def test_hypothesis_needs_grounded_citations():
    paper = _paper()
    cited = paper.sentence_text(paper.sentences[3])
    good = json.dumps({"problem_statement": "p", "hypothesis": "h", "citations": [cited], "reasoning_process":
                       ["[Begin Step 1] a [End Step 1]"]})
    instance, rejection, applicable = grounded_hypothesis(paper, good)
    assert instance is not None and rejection is None and applicable
    assert instance["reasoning_process"] == "[Begin Step 1] a [End Step 1]"
    invented = good.replace(cited.replace('"', '\\"'), "Silicon anodes never crack.")
    assert grounded_hypothesis(paper, invented)[1]["reason"] == "citation not found in the paper"
    assert grounded_hypothesis(paper, '{"applicable": false}') == (None, None, False)


def test_extractors_through_the_port_and_offline(tmp_path):
    from scicustom.adapters.filesystem_store import FilesystemObjectStore

    store = FilesystemObjectStore(tmp_path)
    status = submit_paper_bytes(store, lambda *_: None, lambda *_: None, "rvf.nxml", member("pubmed", JATS[3]))
    paper = parse_stored(store, status.paper_id).parsed
    cited = next(paper.sentence_text(s) for s in paper.sentences if "Rift Valley fever" in paper.sentence_text(s))
    qa_reply = json.dumps({"items": [{"question": "Which disease?", "options": ["Rift Valley fever", "Dengue",
                                                                               "Malaria", "Cholera"],
                                      "answer_index": 0, "citations": [cited]}]})
    llm = RecordedLLM({"exam questions": qa_reply, "Matter": '{"applicable": false}'},
                      "NOT A MATERIAL SYNTHESIS PAPER")
    extractors = LLMExtractors(llm, "recorded-model")
    qa = extract_with(store, status.paper_id, "qa", extractors.qa, "paper-llm-qa")
    assert qa.instances == len(qa_requests(paper)) and qa.batch is not None  # one grounded item per reply
    assert qa.batch.count == 1  # equal items share an id
    hypotheses = extract_with(store, status.paper_id, "hypotheses", extractors.hypotheses, "")
    assert hypotheses.instances == 0 and hypotheses.rejected == 1
    recipes = record_needs_llm(store, status.paper_id, "recipes")
    assert recipes.status == NEEDS_LLM and recipes.instances == 0
    calls = llm.calls
    assert extract_with(store, status.paper_id, "qa", extractors.qa, "paper-llm-qa") == qa  # idempotent
    assert llm.calls == calls
    line = json.loads(store.get_bytes(PaperKeys(status.paper_id).instances("qa")).splitlines()[0])
    assert line["provenance"]["model_version"] == "recorded-model" and line["generator"] == "llm-qa-v1"
    final = paper_status(store, status.paper_id)
    assert final.extractors == {"qa": "extracted", "recipes": NEEDS_LLM, "hypotheses": "extracted"}
