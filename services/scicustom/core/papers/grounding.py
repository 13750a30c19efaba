"""Grounding checks for generated items: is a cited passage really in the paper, and is the answer
supported by it? Exact for the deterministic generator, fuzzy (RapidFuzz) for LLM citations."""

from __future__ import annotations

from rapidfuzz import fuzz

from scicustom.core.corpus_item import normalise_text

CITATION_THRESHOLD = 90.0


def citation_score(citation: str, source: str) -> float:
    """0..100: how well `citation` matches some passage of `source` (partial ratio, normalised text)."""
    citation, source = normalise_text(citation), normalise_text(source)
    if not citation:
        return 0.0
    if citation in source:
        return 100.0
    return float(fuzz.partial_ratio(citation, source))


def citation_grounded(citation: str, source: str, threshold: float = CITATION_THRESHOLD) -> bool:
    return citation_score(citation, source) >= threshold


def answer_supported(answer: str, evidence: str) -> bool:
    """The answer occurs in the evidence (normalised), or at least 90% of its words do."""
    answer_n, evidence_n = normalise_text(answer), normalise_text(evidence)
    if not answer_n:
        return False
    if answer_n in evidence_n:
        return True
    words = answer_n.split()
    present = sum(1 for w in words if w in evidence_n)
    return present / len(words) >= 0.9
