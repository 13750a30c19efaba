"""Which option label a free-text model answer chose.

Rules are tried from the most to the least explicit; the first that gives exactly one valid label
wins, and `rule` records which one (kept in the per-item responses for auditing). Anything else
is unparsed, which evaluation counts as wrong.

1. answer statement: "The answer is (C)", "Answer: c", "final answer: **C**", "I choose C"; the
   last one in the text wins, because reasoning models state a final answer at the end.
2. boxed: "\\boxed{C}".
3. verdict: "C is correct".
4. bold label: "**C**" (all bold labels agree).
5. leading label: the answer opens with a label: "C", "C.", "(C) ...", "C: text".
6. echoed option text: the answer is an option's text, or (short answers) contains exactly one.
7. marked label: exactly one distinct "(C)" or "option C" in the text.
8. short answer: at most eight words holding exactly one distinct stand-alone label.

"A"/"a" is also an English article, so a label followed by a word counts only when that word
is a connector ("A because ...") or starts the option's own text ("A mitochondrion" when A
is "Mitochondrion"); other upper-case labels followed by a word always count.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

_CONNECTORS = frozenset({"is", "was", "because", "since", "as", "which", "with", "for", "so", "and",
                         "but", "would", "should", "seems", "appears"})
_THINK = re.compile(r"<think>.*?</think>", re.S | re.I)
_LATEX_WRAPPER = re.compile(r"\\(?:text|textbf|mathrm|mathbf)\s*\{([^{}]*)\}")
_ANSWER_LEAD = (
    r"(?:\banswer(?:\s+choice|\s+option)?\b|\b(?:correct|right|best)\s+(?:option|choice)\b"
    r"|\bI\s+(?:would\s+|will\s+|'ll\s+|'d\s+)?(?:choose|select|pick|go\s+with)\b)"
    r"(?:\s*(?:is|would\s+be|should\s+be|must\s+be|will\s+be|=|:|-|–|—))*"
    r"\s*(?:(?:option|choice|letter)\b\s*)?[:\-]?\s*[(\[{<\"']?\s*"
)
_LEADING_NOISE = " \t\r\n([{<\"'#>*-"
_AMBIGUOUS_LIST = re.compile(r"^\s*(?:[,/&]|\band\b|\bor\b)\s*\(?[A-E](?![A-Za-z0-9])")


@dataclass(frozen=True)
class LabelExtraction:
    label: str | None
    rule: str  # which rule decided, or "unparsed"


def extract_label(text: str, options: Mapping[str, str]) -> LabelExtraction:
    """The label among `options` (label -> option text) that `text` chose."""
    labels = "".join(options)
    if not labels:
        return LabelExtraction(None, "unparsed")
    body = _prepare(text)
    plain = body.replace("**", "").replace("__", "").replace("`", "")
    for rule, found in (
        ("answer statement", _answer_statement(plain, labels, options)),
        ("boxed", _unique(re.findall(rf"\\boxed\s*\{{\s*\(?([{labels}])\)?\s*\}}", plain))),
        ("verdict", _unique(re.findall(
            rf"(?<![A-Za-z0-9])([{labels}])\)?\s+is\s+(?:the\s+)?(?:correct|right|best|true)\b", plain))),
        ("bold label", _unique(re.findall(rf"\*\*\s*\(?([{labels}])\)?[.:)]?\s*\*\*", body))),
        ("leading label", _leading_label(plain, labels, options)),
        ("echoed option", _echoed_option(plain, options)),
        ("marked label", _unique(
            [a or b for a, b in re.findall(
                rf"\(([{labels}])\)|\b(?:option|choice)\s+([{labels}])(?![A-Za-z0-9])", plain)])),
        ("short answer", _short_answer(plain, labels)),
    ):
        if found is not None:
            return LabelExtraction(found, rule)
    return LabelExtraction(None, "unparsed")


def _prepare(text: str) -> str:
    text = _THINK.sub(" ", text)
    if "</think>" in text:  # an unterminated opening tag was cut off by the provider
        text = text.rsplit("</think>", 1)[1]
    previous = None
    while previous != text:  # \text{\textbf{C}} nests
        previous, text = text, _LATEX_WRAPPER.sub(r"\1", text)
    return text.strip()


def _unique(found: list[str]) -> str | None:
    distinct = {label.upper() for label in found}
    return distinct.pop() if len(distinct) == 1 else None


def _accepts(label: str, rest: str, options: Mapping[str, str]) -> bool:
    """Whether `label` (as written) followed by `rest` names an option rather than being a word."""
    if not rest or not rest[0].isspace():
        return not rest[:1].isalnum()
    following = rest.strip()
    if not following or not following[0].isalpha():
        return True
    word = re.match(r"[A-Za-z']+", following)
    if word is not None and word.group(0).casefold() in _CONNECTORS:
        return True
    if _normalise(following).startswith(_normalise(options.get(label.upper(), "\0"))):
        return True
    return label.isupper() and label != "A"


def _answer_statement(text: str, labels: str, options: Mapping[str, str]) -> str | None:
    pattern = re.compile(_ANSWER_LEAD + rf"([{labels}{labels.lower()}])(?![A-Za-z0-9])", re.I)
    chosen = None
    for match in pattern.finditer(text):
        label = match.group(1)
        if label.upper() in labels and _accepts(label, text[match.end():], options):
            chosen = label.upper()
    return chosen


def _leading_label(text: str, labels: str, options: Mapping[str, str]) -> str | None:
    stripped = text.lstrip(_LEADING_NOISE)
    if not stripped or stripped[0].upper() not in labels:
        return None
    label, rest = stripped[0], stripped[1:]
    if label.islower() and rest.strip(" \t\r\n.,:;!?)]}>\"'*") != "":
        return None  # a lone lower-case letter only when nothing but punctuation follows
    if _AMBIGUOUS_LIST.match(rest) or not _accepts(label, rest, options):
        return None
    return label.upper()


def _normalise(text: str) -> str:
    words = re.sub(r"[^\w\s%.+-]", " ", text.casefold()).split()
    return " ".join(words).strip(" .")


def _echoed_option(text: str, options: Mapping[str, str]) -> str | None:
    said = _normalise(text)
    texts = {label: _normalise(option) for label, option in options.items() if _normalise(option)}
    exact = [label for label, option in texts.items() if option == said]
    if len(exact) == 1:
        return exact[0]
    if len(said) > 300:  # in long reasoning every option tends to be mentioned
        return None
    inside = [label for label, option in texts.items()
              if re.search(rf"(?<!\w){re.escape(option)}(?!\w)", said)]
    # "sodium chloride" also contains option "sodium": keep the options no other one contains.
    maximal = [label for label in inside
               if not any(other != label and texts[label] in texts[other] for other in inside)]
    return maximal[0] if len(maximal) == 1 else None


def _short_answer(text: str, labels: str) -> str | None:
    if len(text.split()) > 8:
        return None
    found = [m.group(1) for m in re.finditer(rf"(?<![A-Za-z0-9'])([{labels}])(?![A-Za-z0-9'])", text)
             if not (m.group(1) == "A" and re.match(r"\s+[A-Za-z]", text[m.end():]))]
    return _unique(found)
