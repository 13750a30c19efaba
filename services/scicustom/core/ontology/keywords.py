"""The keyword set K_v of a unit: synonyms and descendants of its anchors (SciCustom section 2.3).

Nearer terms come first: the anchors' own labels and synonyms, then children, grandchildren and so
on, interleaving the anchors at each distance so one huge anchor cannot crowd out the others.
Within a distance, a term with more children (a more general term, more useful in a query) comes
first. Terms unusable in a natural query (long IUPAC names, identifiers) are skipped. Last, when
room is left, come the anchors' related terms (the NASA Thesaurus's RT links): a thesaurus with a
shallow hierarchy encodes much of its meaning there, and they keep leaf-anchored units from
being empty. The paper derives K_v from descendants only; the related tier is our addition.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import zip_longest

from scicustom.core.ontology.anchoring import Anchor, normalise_term
from scicustom.core.ontology.dag import OntologyDAG

MAX_KEYWORDS = 200
MAX_KEYWORD_CHARS = 60
MAX_KEYWORD_WORDS = 6
_IDENTIFIER = re.compile(r"^[A-Za-z]+[:_]\d+$")


def usable_keyword(term: str) -> bool:
    term = term.strip()
    if not 2 <= len(term) <= MAX_KEYWORD_CHARS or len(term.split()) > MAX_KEYWORD_WORDS:
        return False
    if _IDENTIFIER.match(term) or term.casefold().startswith("obsolete"):
        return False
    letters = sum(ch.isalpha() for ch in term)
    return letters >= 2 and letters / len(term) >= 0.6


def _terms_by_distance(anchor: Anchor, dag: OntologyDAG) -> Iterator[list[str]]:
    """Level 0: the anchor's label and synonyms; level d: labels, then synonyms, of descendants at
    shortest distance d, general terms first."""
    root = dag.nodes[anchor.node_id]
    yield [root.label, *root.synonyms]
    level: list[str] = []
    current = 1
    for distance, nid in dag.descendants_by_distance(anchor.node_id):
        if distance != current:
            yield _order_level(level, dag)
            level, current = [], distance
        level.append(nid)
    if level:
        yield _order_level(level, dag)


def _order_level(node_ids: list[str], dag: OntologyDAG) -> list[str]:
    ranked = sorted(node_ids, key=lambda n: (-len(dag.children_of(n)), dag.nodes[n].label.casefold(), n))
    labels = [dag.nodes[n].label for n in ranked]
    synonyms = [s for n in ranked for s in dag.nodes[n].synonyms]
    return labels + synonyms


@dataclass(frozen=True)
class KeywordSet:
    keywords: list[str]
    n_related: int  # how many of them came from the related-terms tier


def derive_keywords(unit_name: str, anchors: Sequence[Anchor], dags: Mapping[str, OntologyDAG],
                    cap: int = MAX_KEYWORDS) -> KeywordSet:
    own = normalise_term(unit_name)
    seen = {own}
    keywords: list[str] = []

    def take(terms: Iterable[str]) -> None:
        for term in terms:
            if len(keywords) >= cap:
                return
            key = normalise_term(term)
            if key in seen or not usable_keyword(term):
                continue
            seen.add(key)
            keywords.append(term.strip())

    streams = [_terms_by_distance(a, dags[a.source]) for a in anchors if a.source in dags]
    while streams and len(keywords) < cap:
        levels: list[list[str]] = []
        alive = []
        for stream in streams:
            level = next(stream, None)
            if level is not None:
                levels.append(level)
                alive.append(stream)
        take(t for group in zip_longest(*levels) for t in group if t is not None)  # anchors interleaved
        streams = alive
    before_related = len(keywords)
    related = [dags[a.source].nodes[a.node_id].related for a in anchors if a.source in dags]
    take(t for group in zip_longest(*related) for t in group if t is not None)
    return KeywordSet(keywords=keywords, n_related=len(keywords) - before_related)


def exclusive_keywords(unit_names: Sequence[str], keyword_sets: Sequence[Sequence[str]]) -> list[list[str]]:
    """Each term kept by one unit only: a term in two K_v says nothing about which unit a query
    means, and as a training label it teaches the tagger a coin flip (about a third of the terms
    drawn from the 642 default units were such shared terms).

    A term that is some unit's own name stays with that unit alone. Otherwise the unit where the
    term ranks nearest wins: K_v lists synonyms, then children, then deeper descendants, so the
    earliest position is the most specific owner. Ties go to the earlier unit, for determinism.
    Order within each K_v is kept.
    """
    if len(unit_names) != len(keyword_sets):
        raise ValueError("one keyword set per unit name")
    owner: dict[str, tuple[int, int]] = {}  # normalised term -> (rank, unit); rank -1 = the unit's name
    for unit, name in enumerate(unit_names):
        owner.setdefault(normalise_term(name), (-1, unit))
    keys = [[normalise_term(term) for term in terms] for terms in keyword_sets]
    for unit, unit_keys in enumerate(keys):
        for rank, key in enumerate(unit_keys):
            if (rank, unit) < owner.get(key, (len(unit_keys) + 1, len(unit_names))):
                owner[key] = (rank, unit)
    return [[term for term, key in zip(terms, unit_keys, strict=True) if owner[key][1] == unit]
            for unit, (terms, unit_keys) in enumerate(zip(keyword_sets, keys, strict=True))]
