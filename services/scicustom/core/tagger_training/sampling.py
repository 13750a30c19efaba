"""Compositional sampling of synthetic query specs (SciCustom section 2.3).

A spec is 1-5 units, a few keywords drawn from each unit's keyword set K_v, a persona and a
complexity; a writer (the LLM prompt or the offline composer) turns it into a query whose label is
the sampled units. Keywords are split by a stable hash so that evaluation queries can use keywords
that training never saw.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from scicustom.core.tagger_training.query_prompt import PERSONAS, Complexity
from scicustom.core.units import UnitCatalog

# Ontology qualifiers such as "lead (metal)" or "cracking (chemical engineering)" read badly in a query.
_QUALIFIER = re.compile(r"\s*\([^)]*\)\s*")
# The paper samples 1-5 units uniformly; real questions mostly touch one to three, so training leans there.
PAPER_UNIT_COUNTS = (0.2, 0.2, 0.2, 0.2, 0.2)
TRAINING_UNIT_COUNTS = (0.34, 0.3, 0.18, 0.11, 0.07)


def stable_fraction(text: str, salt: str) -> float:
    """A deterministic number in [0, 1) for `text`: the basis of every split here."""
    digest = hashlib.sha256(f"{salt}\x1f{text}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def readable_keyword(term: str) -> str:
    return " ".join(_QUALIFIER.sub(" ", term).split())


@dataclass(frozen=True)
class UnitKeywords:
    unit_id: str
    name: str
    domain: str
    keywords: tuple[str, ...]

    def pool(self) -> tuple[str, ...]:
        """K_v plus the unit's own name, de-duplicated case-insensitively, order kept."""
        seen: set[str] = set()
        out: list[str] = []
        for term in (self.name, *self.keywords):
            text = readable_keyword(term)
            key = text.casefold()
            if text and key not in seen:
                seen.add(key)
                out.append(text)
        return tuple(out)


def unit_keywords_from_catalog(catalog: UnitCatalog) -> list[UnitKeywords]:
    """The scientific units with their K_v (Non-Scientific is never sampled)."""
    return [UnitKeywords(u.id, u.name, u.domain, u.keywords) for u in catalog.scientific()]


def split_keywords(units: Sequence[UnitKeywords], heldout_fraction: float,
                   salt: str = "tagger-keywords") -> tuple[list[UnitKeywords], list[UnitKeywords]]:
    """(training units, evaluation units): each keyword goes to one side by a stable hash.

    Units with fewer than 4 keywords keep all of them on both sides (there is nothing to hold out),
    and the unit name is always on both sides, as a query may name the unit itself.
    """
    train: list[UnitKeywords] = []
    held: list[UnitKeywords] = []
    for unit in units:
        if len(unit.keywords) < 4:
            train.append(unit)
            held.append(unit)
            continue
        out = tuple(k for k in unit.keywords if stable_fraction(k, salt) < heldout_fraction)
        kept = tuple(k for k in unit.keywords if k not in out)
        train.append(UnitKeywords(unit.unit_id, unit.name, unit.domain, kept))
        held.append(UnitKeywords(unit.unit_id, unit.name, unit.domain, out or unit.keywords))
    return train, held


@dataclass(frozen=True)
class QuerySpec:
    unit_ids: tuple[str, ...]
    unit_names: tuple[str, ...]
    domains: tuple[str, ...]
    keywords: tuple[tuple[str, ...], ...]  # per unit, aligned with unit_ids
    persona: str
    complexity: Complexity

    def flat_keywords(self) -> list[str]:
        return [k for group in self.keywords for k in group]


class CompositionalSampler:
    """Draws QuerySpecs. Later units come from the first unit's domain with `same_domain_p`, as
    queries usually combine related concepts; the rest are uniform over all units."""

    def __init__(self, units: Sequence[UnitKeywords], unit_count_p: Sequence[float] = TRAINING_UNIT_COUNTS,
                 max_keywords_per_unit: int = 3, same_domain_p: float = 0.5) -> None:
        if not units:
            raise ValueError("no units to sample from")
        if abs(sum(unit_count_p) - 1.0) > 1e-6 or not 1 <= len(unit_count_p) <= 5:
            raise ValueError("unit_count_p must be 1-5 probabilities summing to 1")
        self._units = list(units)
        self._pools = [u.pool() for u in self._units]
        self._count_p = np.asarray(unit_count_p, dtype=float)
        self._max_kw = max_keywords_per_unit
        self._same_domain_p = same_domain_p
        by_domain: dict[str, list[int]] = {}
        for i, u in enumerate(self._units):
            by_domain.setdefault(u.domain, []).append(i)
        self._by_domain = by_domain

    def sample(self, rng: np.random.Generator) -> QuerySpec:
        n_units = min(int(rng.choice(len(self._count_p), p=self._count_p)) + 1, len(self._units))
        chosen = [int(rng.integers(len(self._units)))]
        while len(chosen) < n_units:
            same = self._by_domain[self._units[chosen[0]].domain]
            pool = same if rng.random() < self._same_domain_p and len(same) > len(chosen) else None
            pick = int(rng.choice(pool)) if pool is not None else int(rng.integers(len(self._units)))
            if pick not in chosen:
                chosen.append(pick)
        keywords = []
        for i in chosen:
            pool_terms = self._pools[i]
            k = int(rng.integers(1, min(self._max_kw, len(pool_terms)) + 1))
            picks = rng.choice(len(pool_terms), size=k, replace=False)
            keywords.append(tuple(pool_terms[j] for j in sorted(picks)))
        complexity: Complexity = "high" if rng.random() < 0.5 else "low"
        return QuerySpec(
            unit_ids=tuple(self._units[i].unit_id for i in chosen),
            unit_names=tuple(self._units[i].name for i in chosen),
            domains=tuple(self._units[i].domain for i in chosen),
            keywords=tuple(keywords),
            persona=PERSONAS[int(rng.integers(len(PERSONAS)))],
            complexity=complexity,
        )
