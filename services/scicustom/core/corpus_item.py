"""A corpus item <q, a>: one question with its reference answer, and where it came from."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from dataclasses import dataclass
from typing import Literal

Format = Literal["mcq", "open"]
LABELS = "ABCDEFGHIJ"


def normalise_text(text: str) -> str:
    """Canonical form for ids and de-duplication: NFKC, case-folded, single spaces."""
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def stable_item_id(source: str, question: str, options: tuple[str, ...], answer: str) -> str:
    parts = [source, normalise_text(question), *map(normalise_text, options), normalise_text(answer)]
    payload = "\x1f".join(parts)
    return f"{source}-{hashlib.sha256(payload.encode()).hexdigest()[:16]}"


@dataclass(frozen=True)
class CorpusItem:
    id: str
    source: str
    licence: str
    subject: str
    question: str
    options: tuple[str, ...]
    answer_index: int | None
    answer: str
    format: Format

    @property
    def text(self) -> str:
        """The <q, a> pair as one text, what embedders and taggers read."""
        return f"{self.question}\nAnswer: {self.answer}"

    def dedup_key(self) -> str:
        return normalise_text(self.question) + "\x1f" + normalise_text(self.answer)


def make_item(
    source: str,
    licence: str,
    subject: str,
    question: str,
    options: list[str] | tuple[str, ...],
    answer_index: int | None,
    answer: str | None = None,
) -> CorpusItem:
    """Build a validated item; raises ValueError naming the problem for a malformed record."""
    question = question.strip()
    opts = tuple(o.strip() for o in options)
    if not question:
        raise ValueError("empty question")
    if opts:
        if len(opts) < 2:
            raise ValueError("fewer than two options")
        if any(not o for o in opts):
            raise ValueError("empty option")
        if answer_index is None or not 0 <= answer_index < len(opts):
            raise ValueError(f"answer index {answer_index!r} out of range for {len(opts)} options")
        if len(opts) > len(LABELS):
            raise ValueError("too many options")
        answer = opts[answer_index]
        fmt: Format = "mcq"
    else:
        if not answer or not answer.strip():
            raise ValueError("open item without an answer")
        answer = answer.strip()
        answer_index = None
        fmt = "open"
    return CorpusItem(
        id=stable_item_id(source, question, opts, answer),
        source=source,
        licence=licence,
        subject=subject,
        question=question,
        options=opts,
        answer_index=answer_index,
        answer=answer,
        format=fmt,
    )


_INLINE_OPTION = re.compile(r"^\s*\(?([A-J1-9])[.)]\s+(.*\S)\s*$")


def split_inline_options(query: str) -> tuple[str, list[str], list[str]]:
    """Split an oe-eval style prompt 'Question: ...\\n A. x\\n B. y\\nAnswer:' into stem, labels, options.

    ARC, OpenBookQA and MedQA keep their options only inside this text.
    """
    text = query.strip()
    if text.startswith("Question:"):
        text = text[len("Question:") :]
    if text.rstrip().endswith("Answer:"):
        text = text.rstrip()[: -len("Answer:")]
    lines = text.rstrip().split("\n")
    # Some sources leave a stray quote line after the options.
    while lines and not lines[-1].strip(" \t\"'"):
        lines.pop()
    labels: list[str] = []
    options: list[str] = []
    # Options are the trailing run of labelled lines; scan from the end so stems with lists survive.
    for i in range(len(lines) - 1, -1, -1):
        match = _INLINE_OPTION.match(lines[i])
        if not match:
            break
        labels.insert(0, match.group(1))
        options.insert(0, match.group(2))
    # A stem line such as "7. ..." can precede the options: the options start at the last "A" or "1".
    start = max((i for i, label in enumerate(labels) if label in "A1"), default=0)
    stem_lines = lines[: len(lines) - len(labels) + start]
    return "\n".join(stem_lines).strip(), labels[start:], options[start:]
