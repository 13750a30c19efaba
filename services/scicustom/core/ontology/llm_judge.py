"""The paper's granularity judge: any LLM behind the LLM port, prompted with Appendix G."""

from __future__ import annotations

from typing import TYPE_CHECKING

from scicustom.core.ontology.granularity import (
    Granularity,
    NodeContext,
    granularity_messages,
    parse_granularity,
)

if TYPE_CHECKING:
    from scicustom.ports import LLM

# The released code classifies with temperature 0 and at most 256 new tokens.
DEFAULT_PARAMS: dict[str, float | int] = {"temperature": 0.0, "max_tokens": 256}


class LLMGranularityJudge:
    """Asks once per node; an answer that names no label gets one stricter retry, and if that also
    names none the node is pruned (the released code prunes an unparsable answer) and recorded."""

    def __init__(self, llm: LLM, model: str, **params: float | int) -> None:
        self.llm = llm
        self.model = model
        self.name = f"llm:{model}"
        self.params = {**DEFAULT_PARAMS, **params}
        self.unparsed: list[tuple[str, str]] = []  # (term, last answer)

    def judge(self, context: NodeContext) -> Granularity:
        messages = granularity_messages(context.node.label)
        answer = self.llm.complete(self.model, messages, **self.params).text
        label = parse_granularity(answer)
        if label is not None:
            return label
        retry = [*messages, {"role": "assistant", "content": answer},
                 {"role": "user", "content": "Answer with exactly one of: (moderate), (too coarse), "
                                             "(too fine)."}]
        answer = self.llm.complete(self.model, retry, **self.params).text
        label = parse_granularity(answer)
        if label is not None:
            return label
        self.unparsed.append((context.node.label, answer))
        return Granularity.FINE
