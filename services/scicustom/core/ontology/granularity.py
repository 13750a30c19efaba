"""Granularity labels, the judge Protocol of Algorithm 1, and the paper's prompt (Appendix G)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from scicustom.core.ontology.dag import NodeStats, OntologyNode


class Granularity(StrEnum):
    COARSE = "coarse"
    MODERATE = "moderate"
    FINE = "fine"


@dataclass(frozen=True)
class NodeContext:
    """What a judge sees of a visited node: the term, its structure and the DFS path above it."""

    node: OntologyNode
    stats: NodeStats
    path: tuple[str, ...] = ()  # labels of the DFS ancestors, root first


class GranularityJudge(Protocol):
    name: str

    def judge(self, context: NodeContext) -> Granularity: ...


GRANULARITY_SYSTEM = "You are a helpful AI assistant."

# Appendix G of the SciCustom paper, verbatim apart from line breaks.
GRANULARITY_USER = """Determine whether the given term is a suitable scientific subfield and answer with one of the following categories:

(moderate): The term is appropriately specific for a scientific subfield. It refers to a category that is neither too general nor too specific for its scientific context. Its scale is similar to the scale of chapter names in subject textbooks.

(too coarse): The term is overly broad or vague for a scientific subfield. It encompasses a wide range of concepts that could be divided into smaller, more specific subfields.

(too fine): The term is overly specific and pertains to a very narrow aspect of a scientific subfield. It may be too detailed to serve as a broader category within the discipline.

Answer at the beginning, explain later. The examples are as follows:

Example 1:
Input: term: anatomical entity
Output: (moderate); Explanation: Anatomical entity refers to a category that is sufficiently specific for many biological subfields but not too narrow.

Example 2:
Input: term: nuclear structure
Output: (moderate); Explanation: Nuclear structure is a well-defined category in molecular biology, specific but not too narrow.

Example 3:
Input: term: electronic file status
Output: (too fine); Explanation: The term refers to a very specific technical concept that is too detailed to be considered a scientific subfield.

Example 4:
Input: term: b-lymphocyte
Output: (too fine); Explanation: While important, the term refers to a very specific type of cell, not a broad enough category to encompass a subfield.

Example 5:
Input: term: continuant
Output: (too coarse); Explanation: The term is too general and could refer to a wide variety of objects or concepts, making it too broad for a specific subfield.

Example 6:
Input: term: occurrent
Output: (too coarse); Explanation: Occurrent is overly vague and applies to many concepts, making it too broad for a scientific subfield.

Input: term: {term}."""  # noqa: E501


def granularity_messages(term: str) -> list[dict[str, str]]:
    return [
        {"role": "system", "content": GRANULARITY_SYSTEM},
        {"role": "user", "content": GRANULARITY_USER.format(term=term)},
    ]


# "(too coarse)", "too-coarse", "**Too Coarse**", "coarse", "(moderate)", "moderately"... The
# parenthesised form wins when present; otherwise the first bare label word does. "not too fine"
# style negations are skipped because the paper asks for the label first.
_PAREN = re.compile(r"\(\s*\**\s*(too[\s_-]*coarse|too[\s_-]*fine|moderate|coarse|fine)\s*\**\s*\)", re.I)
_BARE = re.compile(r"(?<![a-z])(not\s+)?(too[\s_-]*coarse|too[\s_-]*fine|moderate|coarse|fine)(?![a-z])", re.I)


def parse_granularity(text: str) -> Granularity | None:
    """The label an answer gives, or None when it gives none."""
    match = _PAREN.search(text)
    if match is not None:
        return _label(match.group(1))
    for bare in _BARE.finditer(text):
        if bare.group(1):  # "not too fine" names no label
            continue
        return _label(bare.group(2))
    return None


def _label(word: str) -> Granularity:
    word = word.lower()
    if "coarse" in word:
        return Granularity.COARSE
    if "fine" in word:
        return Granularity.FINE
    return Granularity.MODERATE
