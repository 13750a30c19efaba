"""The LLM query writer: the paper's query-generation prompt (Appendix G) through the LLM port."""

from __future__ import annotations

import numpy as np

from scicustom.core.tagger_training.query_prompt import query_messages
from scicustom.core.tagger_training.sampling import QuerySpec
from scicustom.ports import LLM


def clean_query(text: str) -> str:
    """Models often wrap the query in quotes or prefix it with a label; keep the query only."""
    text = text.strip()
    for prefix in ("Query:", "User query:", "**Query:**"):
        if text.casefold().startswith(prefix.casefold()):
            text = text[len(prefix):].strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        text = text[1:-1].strip()
    return text


class LLMQueryWriter:
    def __init__(self, llm: LLM, model: str, temperature: float = 0.7) -> None:
        self._llm = llm
        self.model = model
        self.name = f"llm:{model}"
        self._temperature = temperature

    def compose(self, spec: QuerySpec, rng: np.random.Generator) -> str:
        # The rng is unused: the response cache keys on the prompt, so a rerun reproduces the query.
        del rng
        messages = query_messages(spec.persona, spec.flat_keywords(), spec.complexity)
        reply = self._llm.complete(self.model, messages, temperature=self._temperature)
        query = clean_query(reply.text)
        if not query:
            raise ValueError(f"{self.model} returned an empty query for keywords {spec.flat_keywords()}")
        return query
