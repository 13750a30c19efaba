"""The offline query writer: varied natural questions composed from a QuerySpec's keywords.

Without an LLM the paper's query-generation step is replaced by templates written to look like the
questions the tagger will meet (exam stems, clinical vignettes, lab scenarios, explain/compare
requests, persona-framed research questions), short and long. Every sampled keyword appears in
the text, so the label (the sampled units) stays true. Templates are split by a stable hash so
evaluation can use phrasings that training never saw.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal

import numpy as np

from scicustom.core.tagger_training.sampling import QuerySpec, stable_fraction

TemplateSide = Literal["train", "heldout", "all"]
HELDOUT_TEMPLATE_FRACTION = 0.2

# {a}: the first unit's keywords; {b}: the other units' keywords (templates with {b} need two units);
# {all}: every keyword; {setting}: a domain phrase; {persona}, {age}, {sex} as named.
ONE_TOPIC = (
    "What is {a}?",
    "What is meant by {a}?",
    "Which of the following best describes {a}?",
    "Which of the following statements about {a} is correct?",
    "Which of the following is true regarding {a}?",
    "All of the following are true about {a} EXCEPT:",
    "Describe the main features of {a}.",
    "Explain the mechanism of {a}.",
    "Why is {a} important {setting}?",
    "What is the main function of {a}?",
    "How is {a} studied {setting}?",
    "Give an example of {a} and explain it.",
    "What are the key characteristics of {a}?",
    "Can you explain {a} in simple terms?",
    "I'm trying to understand {a}. Where should I start?",
    "True or false: {a} can be observed {setting}.",
    "Fill in the blank: the defining property of {a} is ____.",
    "Which factor most strongly affects {a}?",
    "What is the most common cause of changes in {a}?",
    "How would you measure {a} {setting}?",
    "A student is asked about {a}. Which answer is correct?",
    "{A} is best characterised by which of the following?",
    "{A}: what are the underlying principles?",
    "Summarise what is known about {a}.",
    "What experimental evidence supports our understanding of {a}?",
    "Name one property of {a}.",
    "Which statement about {a} is false?",
    "Outline the steps involved in {a}.",
    "What limits {a} {setting}?",
    "How has the understanding of {a} changed over time?",
    "The term {a} refers to",
    "Which of these is an example of {a}?",
    "What would happen without {a}?",
    "Identify the role of {a} {setting}.",
)
TWO_TOPIC = (
    "What is the role of {a} in {b}?",
    "How does {a} influence {b}?",
    "What is the relationship between {a} and {b}?",
    "How do {a} and {b} differ?",
    "Compare {a} with {b}.",
    "Which mechanism links {a} to {b}?",
    "Why does {a} affect {b}?",
    "Explain how {a} is related to {b}.",
    "What happens to {b} when {a} changes?",
    "In what way does {a} depend on {b}?",
    "Which of the following best explains the connection between {a} and {b}?",
    "How is {a} used to study {b}?",
    "Describe the interplay of {a} and {b} {setting}.",
    "What distinguishes {a} from {b}?",
    "If {a} is disrupted, what is the expected effect on {b}?",
    "Which statement correctly relates {a} and {b}?",
    "How can {a} be applied to {b}?",
    "Is {a} required for {b}? Explain.",
    "Discuss {a} in the context of {b}.",
    "A question on {a}: how does it bear on {b}?",
    "What evidence connects {a} with {b}?",
    "Can {a} explain the behaviour of {b}?",
    "In {b}, what is the significance of {a}?",
    "Which of the following about {a} and {b} is correct?",
    "{A} and {b}: what is the link?",
    "Why are {a} and {b} often discussed together?",
    "How would a change in {a} alter {b} {setting}?",
    "Explain the effect of {a} on {b}.",
)
PERSONA_FRAMES = (
    "As a {persona}, I am looking at {a}. {question}",
    "I'm a {persona} working on {a}. {question}",
    "From the perspective of a {persona}: {question}",
    "In my work as a {persona} I keep running into {a}. {question}",
    "{question} (asked by a {persona})",
)
CONTEXTS = (
    "Recent work on {a} has raised new questions.",
    "Consider a system in which {a} plays a central role.",
    "Our group studies {a} {setting}.",
    "A researcher is reviewing the literature on {a}.",
    "In a laboratory experiment on {a}, several measurements were taken {setting}.",
    "During a seminar, the discussion turned to {a}.",
    "A textbook chapter introduces {a} with several examples.",
    "Suppose an experiment is designed to test ideas about {a}.",
    "Observations {setting} point to {a}.",
    "Data collected over several months concern {a}.",
)
CLINICAL = (
    "A {age}-year-old {sex} presents with findings related to {a}. {question}",
    "A {age}-year-old {sex} is evaluated for a problem involving {a}. {question}",
    "A patient aged {age} is examined; the workup focuses on {a}. {question}",
)
FOLLOW_UPS = (
    "Please also consider {c}.",
    "Take {c} into account in the answer.",
    "How does {c} fit into this picture?",
    "Discuss the implications for {c}.",
    "Explain your reasoning, referring to {c}.",
    "Include {c} in the explanation.",
    "What role, if any, does {c} play?",
)
CLOSINGS = (
    "Explain your reasoning.",
    "Give a short justification.",
    "Answer briefly.",
    "Support the answer with an example.",
    "Be specific.",
    "",
)
SETTINGS: dict[str, tuple[str, ...]] = {
    "chemistry": ("in solution", "under standard conditions", "in the laboratory", "in a reaction mixture",
                  "at room temperature", "in industrial practice"),
    "biology": ("in living cells", "in an organism", "in model organisms", "in a population", "in vivo",
                "in cultured cells"),
    "medicine": ("in patients", "in clinical practice", "in the clinic", "in adults", "in children",
                 "in older adults"),
    "anatomy": ("in the human body", "in the adult", "on dissection", "in humans", "on imaging"),
    "physics": ("in the system", "at high energies", "in the experiment", "in a vacuum", "at low temperature"),
    "other": ("in the model", "in practice", "in the algorithm", "in the analysis"),
}
DEFAULT_SETTINGS = ("in practice", "in this context", "in general", "in experiments")
AGES = (3, 8, 16, 24, 32, 45, 52, 60, 67, 74, 81)
SEXES = ("man", "woman", "boy", "girl", "male", "female")
CLINICAL_DOMAINS = frozenset({"medicine", "anatomy"})


def _side(templates: Sequence[str], side: TemplateSide) -> tuple[str, ...]:
    if side == "all":
        return tuple(templates)
    held = tuple(t for t in templates if stable_fraction(t, "tagger-templates") < HELDOUT_TEMPLATE_FRACTION)
    chosen = held if side == "heldout" else tuple(t for t in templates if t not in held)
    return chosen or tuple(templates)


def join_terms(terms: Sequence[str]) -> str:
    if len(terms) == 1:
        return terms[0]
    if len(terms) == 2:
        return f"{terms[0]} and {terms[1]}"
    return ", ".join(terms[:-1]) + f" and {terms[-1]}"


def _capitalise(text: str) -> str:
    return text[:1].upper() + text[1:]


class OfflineComposer:
    """Writes a query for a spec; deterministic for a given rng state."""

    name = "offline-composer"

    def __init__(self, side: TemplateSide = "train", answer_suffix_p: float = 0.3) -> None:
        self._one = _side(ONE_TOPIC, side)
        self._two = _side(TWO_TOPIC, side)
        self._persona = _side(PERSONA_FRAMES, side)
        self._contexts = _side(CONTEXTS, side)
        self._clinical = _side(CLINICAL, side)
        self._follow = _side(FOLLOW_UPS, side)
        self._answer_suffix_p = answer_suffix_p

    def _term(self, term: str, rng: np.random.Generator) -> str:
        # Real questions write most terms in lower case; acronyms and proper names keep theirs.
        if term[:1].isupper() and not term[1:2].isupper() and rng.random() < 0.6:
            return term[0].lower() + term[1:]
        return term

    def compose(self, spec: QuerySpec, rng: np.random.Generator) -> str:
        groups = [[self._term(t, rng) for t in group] for group in spec.keywords]
        order = rng.permutation(len(groups))
        groups = [groups[i] for i in order]
        domains = [spec.domains[i] for i in order]
        settings = SETTINGS.get(domains[0], DEFAULT_SETTINGS)
        setting = settings[int(rng.integers(len(settings)))]
        a = join_terms(groups[0])
        rest = [t for g in groups[1:] for t in g]
        fill = {"setting": setting, "persona": spec.persona.lower(),
                "age": str(AGES[int(rng.integers(len(AGES)))]), "sex": SEXES[int(rng.integers(len(SEXES)))]}

        def render(template: str, **slots: str) -> str:
            values = {**fill, **slots}
            if "{A}" in template:
                values["A"] = _capitalise(values["a"])
            return template.format(**values)

        # With several units, the high-complexity form spreads them over context, question and follow-up.
        if spec.complexity == "high" and len(groups) >= 2:
            return self._compose_high(groups, domains, render, rng)
        if rest:
            question = render(self._two[int(rng.integers(len(self._two)))], a=a, b=join_terms(rest))
        else:
            question = render(self._one[int(rng.integers(len(self._one)))], a=a)
        if spec.complexity == "high":
            context = render(self._contexts[int(rng.integers(len(self._contexts)))], a=a)
            closing = CLOSINGS[int(rng.integers(len(CLOSINGS)))]
            question = " ".join(p for p in (context, question, closing) if p)
        elif rng.random() < 0.15:
            frame = self._persona[int(rng.integers(len(self._persona)))]
            question = render(frame, a=a, question=question)
        return self._with_answer(question, spec, rng)

    def _compose_high(self, groups: list[list[str]], domains: list[str], render: Callable[..., str],
                      rng: np.random.Generator) -> str:
        a = join_terms(groups[0])
        b_terms = groups[1]
        c_terms = [t for g in groups[2:] for t in g]
        two = self._two[int(rng.integers(len(self._two)))]
        question = render(two, a=a, b=join_terms(b_terms))
        if any(d in CLINICAL_DOMAINS for d in domains) and rng.random() < 0.4:
            text = render(self._clinical[int(rng.integers(len(self._clinical)))], a=a, question=question)
        elif rng.random() < 0.3:
            text = render(self._persona[int(rng.integers(len(self._persona)))], a=a, question=question)
        else:
            context = render(self._contexts[int(rng.integers(len(self._contexts)))], a=a)
            text = f"{context} {question}"
        if c_terms:
            follow = self._follow[int(rng.integers(len(self._follow)))]
            text = f"{text} {render(follow, c=join_terms(c_terms))}"
        closing = CLOSINGS[int(rng.integers(len(CLOSINGS)))]
        return f"{text} {closing}".strip()

    def _with_answer(self, question: str, spec: QuerySpec, rng: np.random.Generator) -> str:
        # Corpus items are tagged as "question\nAnswer: answer"; some training text should look alike.
        if rng.random() >= self._answer_suffix_p:
            return question
        terms = spec.flat_keywords()
        return f"{question}\nAnswer: {terms[int(rng.integers(len(terms)))]}"
