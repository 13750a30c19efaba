"""The offline question generator: cloze and definition questions taken verbatim from a paper.

It never writes a fact: the stem is a sentence of the paper with one span blanked (a quantity with
its unit, a chemical formula) or asks what an abbreviation defined in the paper stands for; the
answer is that span, and the distractors are other spans of the same type from the same paper (same
unit for quantities) or, for an abbreviation, ontology terms with the same initials first
(initialisms.py), or for a quantity its value scaled by 10, 0.1, 2 or 0.5; with fewer than three of
those the item is open (question and answer). An
item is kept only if it passes the grounding checks (the stem with the answer put back is the
sentence at the cited span, byte for byte) and the ambiguity checks (the sentence stands on its own,
the answer occurs once, no distractor occurs in the sentence, distractors distinct from the answer
and from each other). Every rejected candidate is counted by reason and kept for audit.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from scicustom.core.corpus_item import normalise_text
from scicustom.core.papers.document import ParsedPaper, Sentence
from scicustom.core.papers.grounding import answer_supported, citation_grounded
from scicustom.core.papers.initialisms import InitialismIndex
from scicustom.core.quantities import QUANTITY

GENERATOR = "cloze-v1"
MODEL_VERSION = "deterministic"
BLANK = "_____"
N_DISTRACTORS = 3
MIN_SENTENCE, MAX_SENTENCE = 50, 400

_ELEMENT_SYMBOLS = ("H He Li Be B C N O F Ne Na Mg Al Si P S Cl Ar K Ca Sc Ti V Cr Mn Fe Co Ni Cu Zn Ga Ge As Se Br "
                    "Kr Rb Sr Y Zr Nb Mo Tc Ru Rh Pd Ag Cd In Sn Sb Te I Xe Cs Ba La Ce Pr Nd Pm Sm Eu Gd Tb Dy Ho "
                    "Er Tm Yb Lu Hf Ta W Re Os Ir Pt Au Hg Tl Pb Bi Po At Rn Fr Ra Ac Th Pa U Np Pu")
_ELEMENTS = frozenset(_ELEMENT_SYMBOLS.split(" "))
_FORMULA = re.compile(r"(?<![\w-])((?:[A-Z][a-z]?\d*(?:\.\d+)?){2,8})(?![\w-])")
_ELEMENT_TOKEN = re.compile(r"([A-Z][a-z]?)(\d*(?:\.\d+)?)")
_ABBREVIATION = re.compile(r"\(([A-Z][A-Za-z0-9-]{1,9})\)")
_CONTEXT_DEPENDENT = re.compile(r"^(this|these|that|those|it|its|they|their|such|both|here|there|however|"
                                r"thus|therefore|hence|in addition|moreover|furthermore|similarly|"
                                r"in contrast|conversely)\b", re.IGNORECASE)
_SKIP_SECTIONS = re.compile(r"acknowledg|funding|competing|conflict|author contribution|supplementa|"
                            r"data availability|abbreviations|ethics", re.IGNORECASE)


@dataclass(frozen=True)
class Span:
    kind: str   # quantity, formula or abbreviation
    key: str    # what distractors must share: the unit for quantities, the kind otherwise
    text: str   # the answer as it stands in the paper
    start: int  # offsets into ParsedPaper.text
    end: int
    term: str = ""  # abbreviations: the short form the question asks about


@dataclass(frozen=True)
class GeneratedItem:
    """Multiple choice when the paper has enough distractors of the answer's type, else open (the
    build's MCQ stage adds distractors from the nearest corpus items, as for every open item)."""

    question: str
    options: tuple[str, ...]
    answer_index: int | None
    kind: str
    section: str
    evidence: tuple[int, int]  # the cited sentence
    answer_span: tuple[int, int]
    answer: str
    generator: str = GENERATOR
    model_version: str = MODEL_VERSION
    # how many distractors came from the ontology vocabulary, the paper, or the answer's value scaled
    distractor_sources: dict[str, int] = field(default_factory=dict)



@dataclass(frozen=True)
class Rejection:
    reason: str
    kind: str
    answer: str
    evidence: tuple[int, int]


@dataclass
class ClozeResult:
    items: list[GeneratedItem] = field(default_factory=list)
    rejections: list[Rejection] = field(default_factory=list)

    @property
    def candidates(self) -> int:
        return len(self.items) + len(self.rejections)

    def rejected_by_reason(self) -> dict[str, int]:
        return dict(sorted(Counter(r.reason for r in self.rejections).items()))

    def audit_records(self) -> list[dict[str, Any]]:
        return [{"reason": r.reason, "kind": r.kind, "answer": r.answer, "evidence": list(r.evidence)}
                for r in self.rejections]


def _is_formula(text: str) -> bool:
    tokens = _ELEMENT_TOKEN.findall(text)
    if "".join(a + b for a, b in tokens) != text or len(tokens) < 2:
        return False
    counts = [c for _, c in tokens if c]
    return (all(symbol in _ELEMENTS for symbol, _ in tokens) and bool(counts)
            and all(not c.startswith("0") and float(c) <= 20 for c in counts))


def _long_form(before: str, short: str) -> str:
    """Schwartz & Hearst (2003): the shortest run of the last words before "(SHORT)" that holds the
    short form's characters in order, the first one starting a word; '' when none does."""
    if sum(c.isupper() for c in short) < 2 or not short[0].isalpha():
        return ""
    words = before.rstrip().split()
    window = " ".join(words[-min(len(short) + 5, len(short) * 2):])
    s, i = len(short) - 1, len(window) - 1
    while s >= 0:
        c = short[s].lower()
        if not c.isalnum():
            s -= 1
            continue
        while i >= 0 and (window[i].lower() != c or (s == 0 and i > 0 and window[i - 1].isalnum())):
            i -= 1
        if i < 0:
            return ""
        i -= 1
        s -= 1
    text = window[i + 1:].strip(" ,;:")
    if not re.fullmatch(r"[A-Za-z][A-Za-z\- ]+", text) or text.lower() == short.lower() or " " not in text:
        return ""
    return text


def find_spans(text: str, offset: int) -> list[Span]:
    """Candidate answers in one sentence (`offset` is where the sentence starts in the paper)."""
    spans: list[Span] = []
    for m in _ABBREVIATION.finditer(text):
        long_form = _long_form(text[: m.start()], m.group(1))
        if long_form:
            start = text.rfind(long_form, 0, m.start())
            spans.append(Span("abbreviation", "abbreviation", long_form, offset + start,
                              offset + start + len(long_form), m.group(1)))
    for m in _FORMULA.finditer(text):
        if _is_formula(m.group(1)):
            spans.append(Span("formula", "formula", m.group(1), offset + m.start(1), offset + m.end(1)))
    for m in QUANTITY.finditer(text):
        unit = re.sub(r"\s", "", m.group(2))
        spans.append(Span("quantity", f"quantity:{unit}", m.group(0), offset + m.start(), offset + m.end()))
    return spans


def _order(question: str, options: list[str]) -> list[str]:
    return sorted(options, key=lambda o: hashlib.sha256(f"{question}\x1f{o}".encode()).hexdigest())


def _singular(text: str) -> str:
    """Normalised text without a plural "s", so "hazard ratios" and "hazard ratio" count as one option."""
    norm = normalise_text(text)
    return norm[:-1] if norm.endswith("s") and len(norm) > 3 else norm


def scaled_quantities(answer: str) -> list[str]:
    """The answer's value times 10, 0.1, 2 and 0.5 with its unit ("3.4 mM" -> "34 mM", "0.34 mM", ...):
    wrong by construction, of the right type and unit. None for a range or a non-quantity."""
    match = QUANTITY.fullmatch(answer)
    if match is None or re.search(r"\d\s?[-–]\s?\d", match.group(1)):
        return []
    number = match.group(1)
    value = float(number.replace("−", "-"))
    if value == 0:
        return []
    gap = answer[len(number):len(answer) - len(match.group(2))]
    return [f"{_plain(value * factor)}{gap}{match.group(2)}" for factor in (10, 0.1, 2, 0.5)]


def _plain(value: float) -> str:
    """Four significant digits at most, never an exponent (50000, 0.34, 23.5)."""
    digits = max(0, 3 - math.floor(math.log10(abs(value))))
    text = f"{value:.{digits}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def _distractors(span: Span, sentence: str, pool: dict[str, list[str]], terms: dict[str, str],
                 vocabulary: InitialismIndex | None) -> list[tuple[str, str]]:
    """Same-type options with where each came from, none in the sentence, none another name of the
    answer: for an abbreviation, ontology terms with its initials first (the paper's other long forms
    would give the answer away); then the paper's own spans; for a quantity still short of options,
    the answer's value scaled (same unit)."""
    seen = {_singular(span.text)}
    sentence_n = normalise_text(sentence)
    term = _singular(span.term)

    def usable(option: str) -> bool:
        norm = _singular(option)
        if norm in seen or normalise_text(option) in sentence_n or (term and _singular(terms.get(
                normalise_text(option), "")) == term):
            return False
        seen.add(norm)
        return True

    # The closest in length first (a stable choice that keeps options alike), then source order.
    def by_length(options: list[str]) -> list[str]:
        return sorted(options, key=lambda o: abs(len(o) - len(span.text)))

    chosen = [(o, "ontology") for o in by_length(vocabulary.terms_for(span.term)) if usable(o)] \
        if vocabulary is not None and span.kind == "abbreviation" else []
    chosen += [(o, "paper") for o in by_length([o for o in pool.get(span.key, []) if usable(o)])]
    if span.kind == "quantity" and len(chosen) < N_DISTRACTORS:
        chosen += [(o, "scaled") for o in scaled_quantities(span.text) if usable(o)]
    return chosen[:N_DISTRACTORS]


def _reject_reason(paper: ParsedPaper, sentence: Sentence, text: str, span: Span) -> str:
    if not MIN_SENTENCE <= len(text) <= MAX_SENTENCE:
        return "sentence length out of range"
    if _CONTEXT_DEPENDENT.match(text):
        return "sentence depends on context"
    if text.count(span.text) != 1 and span.kind != "abbreviation":
        return "answer occurs more than once"
    if paper.text[span.start:span.end] != span.text:
        return "answer span does not match the paper"
    return ""


def generate_cloze(paper: ParsedPaper, max_items: int = 50, vocabulary: InitialismIndex | None = None) -> ClozeResult:
    """Grounded cloze/definition MCQs of `paper`, at most one per sentence and `max_items` in all;
    `vocabulary`: ontology terms that can be distractors of definition questions."""
    per_sentence: list[tuple[Sentence, str, list[Span]]] = []
    pool: dict[str, list[str]] = {}
    terms: dict[str, str] = {}  # abbreviations: long form -> short form
    for sentence in paper.sentences:
        text = paper.sentence_text(sentence)
        spans = find_spans(text, sentence.start)
        per_sentence.append((sentence, text, spans))
        for span in spans:
            pool.setdefault(span.key, []).append(span.text)
            if span.term:
                terms[normalise_text(span.text)] = span.term
    result = ClozeResult()
    priority = {"abbreviation": 0, "formula": 1, "quantity": 2}
    for sentence, text, spans in per_sentence:
        if len(result.items) >= max_items:
            break
        section = paper.sections[sentence.section].title if paper.sections else ""
        if not spans or _SKIP_SECTIONS.search(section):
            continue
        evidence = (sentence.start, sentence.end)
        for span in sorted(spans, key=lambda s: (priority[s.kind], s.start)):
            reason = _reject_reason(paper, sentence, text, span)
            if reason:
                result.rejections.append(Rejection(reason, span.kind, span.text, evidence))
                continue
            item = _item(paper, section, text, span, _distractors(span, text, pool, terms, vocabulary), evidence)
            if item is None:
                result.rejections.append(Rejection("not grounded", span.kind, span.text, evidence))
                continue
            result.items.append(item)
            break
    return result


def _item(paper: ParsedPaper, section: str, text: str, span: Span, sourced: list[tuple[str, str]],
          evidence: tuple[int, int]) -> GeneratedItem | None:
    distractors = [option for option, _ in sourced]
    title = paper.title or "the paper"
    if span.kind == "abbreviation":
        question = (f'In the paper "{title}", the abbreviation "{span.term}" is defined in this sentence: '
                    f'"{text.replace(span.text, BLANK, 1)}". What does {span.term} stand for?')
        stem_ok = text.replace(span.text, BLANK, 1).replace(BLANK, span.text, 1) == text
    else:
        local = span.start - evidence[0]
        stem = text[:local] + BLANK + text[local + len(span.text):]
        question = f'Fill in the blank in this statement from the paper "{title}": {stem}'
        stem_ok = stem.replace(BLANK, span.text, 1) == text
    grounded = (stem_ok and paper.text[evidence[0]:evidence[1]] == text
                and citation_grounded(text, paper.text) and answer_supported(span.text, text))
    if not grounded:
        return None
    if len(distractors) < N_DISTRACTORS:
        return GeneratedItem(question, (), None, span.kind, section, evidence, (span.start, span.end), span.text)
    options = _order(question, [span.text, *distractors])
    return GeneratedItem(question, tuple(options), options.index(span.text), span.kind, section, evidence,
                         (span.start, span.end), span.text,
                         distractor_sources=dict(sorted(Counter(source for _, source in sourced).items())))
