"""Recipe extraction from a paper's text (AlchemyBench section 2.2): classify the text, then, for a
paper with a synthesis procedure, extract the recipe into its five sections."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any

from scicustom.core.alchemy.classification import Classification, parse_classification
from scicustom.core.alchemy.prompts import CLASSIFICATION_PROMPT, EXTRACTION_PROMPT
from scicustom.core.alchemy.recipe import Recipe, parse_recipe
from scicustom.ports import LLM

# Paper Appendix C.1: temperature 0, 4096 output tokens. The released code keeps the first
# 50,000 characters of a paper and skips texts shorter than 100.
EXTRACTION_PARAMS: Mapping[str, Any] = {"temperature": 0, "max_tokens": 4096}
MAX_PAPER_CHARS = 50_000
MIN_PAPER_CHARS = 100


@dataclass(frozen=True)
class Paper:
    id: str
    text: str


@dataclass(frozen=True)
class Extraction:
    paper_id: str
    status: str  # "extracted", "no_recipe" (classifier or extractor said so), "too_short"
    classification: Classification | None
    recipe: Recipe | None
    raw: str = ""


class RecipeExtractor:
    def __init__(self, llm: LLM, model: str, *, classify: bool = True) -> None:
        self._llm = llm
        self._model = model
        self._classify = classify

    def _ask(self, template: str, text: str) -> str:
        prompt = template.replace("{text}", text[:MAX_PAPER_CHARS])
        messages = [{"role": "user", "content": prompt}]
        return self._llm.complete(self._model, messages, **EXTRACTION_PARAMS).text

    def extract(self, paper: Paper) -> Extraction:
        if len(paper.text.strip()) < MIN_PAPER_CHARS:
            return Extraction(paper.id, "too_short", None, None)
        classification = None
        if self._classify:
            classification = parse_classification(self._ask(CLASSIFICATION_PROMPT, paper.text))
            if classification.has_recipe is False:
                return Extraction(paper.id, "no_recipe", classification, None)
        raw = self._ask(EXTRACTION_PROMPT, paper.text)
        recipe = parse_recipe(paper.id, raw)
        return Extraction(paper.id, "extracted" if recipe else "no_recipe", classification, recipe, raw)

    def extract_all(self, papers: Sequence[Paper], workers: int = 4) -> list[Extraction]:
        with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
            return list(pool.map(self.extract, papers))
