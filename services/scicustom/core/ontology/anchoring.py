"""Anchor knowledge units to ontology nodes: exact label, synonym, then fuzzy, then embedding.

A unit keeps every lexical (exact or synonym) match across sources, best first. A unit whose anchors
so far would yield fewer than `min_yield` keywords (no match, or only leaf terms without synonyms)
also takes the fuzzy stage (the best-scoring strings that pass a guard against prefix negations
such as saturated/unsaturated), and if still short, the embedding stage (the nearest node with
descendants).
Every anchor records the method and its score (1.0 for lexical, ratio/100 for fuzzy, cosine for
embedding) so a reader can judge it.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

import numpy as np
from rapidfuzz import fuzz, process

from scicustom.core.ontology.dag import OntologyDAG

METHOD_RANK = {"exact": 0, "synonym": 1, "fuzzy": 2, "embedding": 3}
FUZZY_CUTOFF = 90.0
EMBEDDING_CUTOFF = 0.8
MAX_ANCHORS = 5
MIN_YIELD = 5

_NON_ALNUM = re.compile(r"[^0-9a-z]+")


def normalise_term(text: str) -> str:
    """Case, accents, punctuation and a plural last word do not distinguish two terms."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    words = _NON_ALNUM.sub(" ", ascii_text.casefold()).split()
    if words:
        words[-1] = _singular(words[-1])
    return " ".join(words)


def _singular(word: str) -> str:
    if len(word) <= 3 or word.endswith(("ss", "us", "is")):
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "ches", "shes")):
        return word[:-2]
    if word.endswith("s"):
        return word[:-1]
    return word


@dataclass(frozen=True)
class NodeRef:
    source: str
    node_id: str
    label: str
    n_descendants: int
    n_synonyms: int = 0


@dataclass(frozen=True)
class Anchor:
    source: str
    node_id: str
    label: str
    method: str
    score: float

    def as_dict(self) -> dict[str, str | float]:
        return {"source": self.source, "node_id": self.node_id, "label": self.label,
                "method": self.method, "score": round(self.score, 4)}


class TextEncoder(Protocol):
    def encode(self, texts: Sequence[str]) -> np.ndarray: ...


class TermIndex:
    """Normalised labels and synonyms of every node of the given DAGs."""

    def __init__(self, dags: Sequence[OntologyDAG]) -> None:
        self.by_label: dict[str, list[NodeRef]] = {}
        self.by_synonym: dict[str, list[NodeRef]] = {}
        self.refs: dict[tuple[str, str], NodeRef] = {}
        for dag in dags:
            for nid, node in dag.nodes.items():
                ref = NodeRef(dag.source, nid, node.label, dag.stat(nid).n_descendants, len(node.synonyms))
                self.refs[(dag.source, nid)] = ref
                self.by_label.setdefault(normalise_term(node.label), []).append(ref)
                for synonym in node.synonyms:
                    key = normalise_term(synonym)
                    if key:
                        self.by_synonym.setdefault(key, []).append(ref)
        # One fuzzy choice per distinct normalised string; labels and synonyms alike.
        self.fuzzy_choices: list[str] = sorted(set(self.by_label) | set(self.by_synonym))

    def lexical(self, name: str) -> list[Anchor]:
        key = normalise_term(name)
        anchors = [Anchor(r.source, r.node_id, r.label, "exact", 1.0) for r in self.by_label.get(key, [])]
        taken = {(a.source, a.node_id) for a in anchors}
        anchors += [Anchor(r.source, r.node_id, r.label, "synonym", 1.0)
                    for r in self.by_synonym.get(key, []) if (r.source, r.node_id) not in taken]
        return anchors

    def fuzzy(self, name: str, cutoff: float, limit: int) -> list[Anchor]:
        key = normalise_term(name)
        hits = process.extract(key, self.fuzzy_choices, scorer=fuzz.ratio, score_cutoff=cutoff,
                               limit=limit)
        # Only the best-scoring strings: a weaker near-miss is usually a different concept.
        best = max((score for _, score, _ in hits), default=0.0)
        anchors: dict[tuple[str, str], Anchor] = {}
        for choice, score, _ in hits:
            if score < best or not plausible_fuzzy_pair(key, choice):
                continue
            for ref in self.by_label.get(choice, []) + self.by_synonym.get(choice, []):
                if (ref.source, ref.node_id) not in anchors:
                    anchors[(ref.source, ref.node_id)] = Anchor(ref.source, ref.node_id, ref.label,
                                                                "fuzzy", score / 100.0)
        return list(anchors.values())


def plausible_fuzzy_pair(a: str, b: str) -> bool:
    """Near-identical strings can still name opposites or other things: reject pairs whose word
    counts differ by more than one, or where an aligned word is another word plus a prefix
    (saturated/unsaturated, ubiquitination/deubiquitination)."""
    wa, wb = a.split(), b.split()
    if abs(len(wa) - len(wb)) > 1:
        return False
    if len(wa) == len(wb):
        for x, y in zip(wa, wb, strict=True):
            if x != y and (x.endswith(y) or y.endswith(x)):
                return False
    return True


def keyword_yield(anchors: Sequence[Anchor], index: TermIndex) -> int:
    """How many keywords the anchors can give at most: their descendants and synonyms."""
    refs = [index.refs[(a.source, a.node_id)] for a in anchors]
    return sum(r.n_descendants + r.n_synonyms for r in refs)


@dataclass(frozen=True)
class EmbeddingCandidates:
    """Nodes eligible for embedding matches and their L2-normalised label vectors."""

    refs: Sequence[NodeRef]
    vectors: np.ndarray


def rank_anchors(anchors: Sequence[Anchor], index: TermIndex, limit: int) -> list[Anchor]:
    """Best method first, then the node with more descendants (richer keywords), then id."""
    def key(a: Anchor) -> tuple[int, float, int, str, str]:
        n_desc = index.refs[(a.source, a.node_id)].n_descendants
        return (METHOD_RANK[a.method], -a.score, -n_desc, a.source, a.node_id)

    return sorted(anchors, key=key)[:limit]


def anchor_units(
    names: Sequence[str],
    index: TermIndex,
    *,
    encoder: TextEncoder | None = None,
    candidates: EmbeddingCandidates | None = None,
    fuzzy_cutoff: float = FUZZY_CUTOFF,
    embedding_cutoff: float = EMBEDDING_CUTOFF,
    max_anchors: int = MAX_ANCHORS,
    min_yield: int = MIN_YIELD,
) -> list[list[Anchor]]:
    """Anchors for each unit name, in the order of `names`; an empty list means unanchored."""
    found: list[list[Anchor]] = []
    for name in names:
        anchors = index.lexical(name)
        if keyword_yield(anchors, index) < min_yield:
            taken = {(a.source, a.node_id) for a in anchors}
            anchors += [a for a in index.fuzzy(name, fuzzy_cutoff, limit=max_anchors)
                        if (a.source, a.node_id) not in taken]
        found.append(rank_anchors(anchors, index, max_anchors))
    short = [i for i, anchors in enumerate(found) if keyword_yield(anchors, index) < min_yield]
    if short and encoder is not None and candidates is not None and len(candidates.refs):
        queries = encoder.encode([names[i] for i in short])
        similarity = queries @ candidates.vectors.T
        for row, i in enumerate(short):
            # Only the nearest node: the runner-up of a loose semantic match is rarely the same concept.
            j = int(np.argmax(similarity[row]))
            ref = candidates.refs[j]
            if similarity[row, j] >= embedding_cutoff and all(
                    (a.source, a.node_id) != (ref.source, ref.node_id) for a in found[i]):
                found[i] = rank_anchors(
                    [*found[i], Anchor(ref.source, ref.node_id, ref.label, "embedding",
                                       float(similarity[row, j]))], index, max_anchors)
    return found
