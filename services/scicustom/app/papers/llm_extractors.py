"""The extractors that need an LLM, through the LLM port (litellm behind it, cached): grounded QA,
AlchemyBench recipes and Matter-to-Mechanism hypotheses. Each returns (instances with provenance,
rejected candidates for audit, corpus items for the tag/index stages, model)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from scicustom.app.papers.paper_stages import UNSPECIFIED_LICENCE, provenance
from scicustom.core.alchemy.extraction import Paper as AlchemyPaper
from scicustom.core.alchemy.extraction import RecipeExtractor
from scicustom.core.corpus_item import CorpusItem, make_item
from scicustom.core.papers.document import ParsedPaper
from scicustom.core.papers.llm_extraction import (
    HYPOTHESIS_EXTRACTOR,
    PARAMS,
    QA_GENERATOR,
    evidence_span,
    grounded_hypothesis,
    grounded_qa,
    m2m_messages,
    qa_requests,
)
from scicustom.ports import LLM

LLM_QA_SOURCE = "paper-llm-qa"
RECIPE_EXTRACTOR = "alchemybench-recipe-v1"

Result = tuple[list[dict[str, Any]], list[dict[str, Any]], list[CorpusItem], str]


@dataclass(frozen=True)
class LLMExtractors:
    llm: LLM
    model: str

    def qa(self, paper_id: str, parsed: ParsedPaper) -> Result:
        instances: list[dict[str, Any]] = []
        rejected: list[dict[str, Any]] = []
        items: list[CorpusItem] = []
        for prompt, first, second in qa_requests(parsed):
            reply = self.llm.complete(self.model, [{"role": "user", "content": prompt}], **PARAMS).text
            kept, dropped = grounded_qa(parsed, reply)
            mode = "multi-chunk" if second is not None else "single-chunk"
            rejected += [{**d, "generator": QA_GENERATOR, "mode": mode} for d in dropped]
            for record in kept:
                item = make_item(LLM_QA_SOURCE, (parsed.licence or UNSPECIFIED_LICENCE)[:100],
                                 (parsed.title or paper_id)[:1000], record["question"], record["options"],
                                 record["answer_index"])
                span = evidence_span(parsed, record["citations"][0])
                items.append(item)
                instances.append({"kind": "qa", "item_id": item.id, **record, "generator": QA_GENERATOR,
                                  "mode": mode, "provenance": provenance(paper_id, parsed, first.section, span,
                                                                          QA_GENERATOR, self.model)})
        return instances, rejected, items, self.model

    def recipes(self, paper_id: str, parsed: ParsedPaper) -> Result:
        extraction = RecipeExtractor(self.llm, self.model).extract(AlchemyPaper(paper_id, parsed.text))
        if extraction.recipe is None:
            return [], [{"reason": f"no recipe ({extraction.status})"}], [], self.model
        record = extraction.recipe.to_row()
        return ([{"kind": "recipe", **record, "provenance": provenance(
            paper_id, parsed, "", (0, len(parsed.text)), RECIPE_EXTRACTOR, self.model)}], [], [], self.model)

    def hypotheses(self, paper_id: str, parsed: ParsedPaper) -> Result:
        reply = self.llm.complete(self.model, m2m_messages(parsed), **PARAMS).text
        instance, rejection, applicable = grounded_hypothesis(parsed, reply)
        if not applicable:
            return [], [{"reason": "not a materials problem-solution paper"}], [], self.model
        if instance is None:
            return [], [rejection or {"reason": "no instance"}], [], self.model
        span = evidence_span(parsed, instance["citations"][0])
        return ([{"kind": "hypothesis", **instance, "provenance": provenance(
            paper_id, parsed, "", span, HYPOTHESIS_EXTRACTOR, self.model)}], [], [], self.model)
