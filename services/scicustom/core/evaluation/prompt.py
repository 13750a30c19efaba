"""The zero-shot prompt every chat model gets for an MCQ.

The SciCustom paper does not publish its answer prompt; this one states the task, lists the valid
labels and asks for a fixed final line, which keeps label extraction reliable across models.
The query goes in verbatim (it is what the recorded test server keys on).
"""

from __future__ import annotations

from scicustom.core.evaluation.benchmark_lines import MCQItem

SYSTEM_PROMPT = (
    "You are an expert in science answering a multiple-choice question. "
    "Exactly one option is correct."
)


def answer_instruction(labels: tuple[str, ...]) -> str:
    listed = ", ".join(labels[:-1]) + f" or {labels[-1]}"
    return (f"Think briefly if needed, then finish with a line of the form 'Answer: X' "
            f"where X is one of {listed}.")


def build_messages(item: MCQItem) -> list[dict[str, str]]:
    return [
        {"role": "system", "content": SYSTEM_PROMPT},
        {"role": "user", "content": f"{item.query}\n\n{answer_instruction(item.labels)}"},
    ]


def scoring_prompt(item: MCQItem, with_options: bool) -> str:
    """The plain-text prefix a local causal LM continues: with the options listed when it is
    scored on the labels, the stem alone (cloze style) when it is scored on the option texts."""
    return f"Question: {item.query if with_options else item.stem}\nAnswer:"
