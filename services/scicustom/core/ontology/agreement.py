"""Agreement between a selected unit set and a reference set by fuzzy name match (the paper's
label matching: rapidfuzz ratio >= 85 on normalised names)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from rapidfuzz import fuzz, process

from scicustom.core.ontology.anchoring import normalise_term

MATCH_CUTOFF = 85.0


def match_matrix(found: Sequence[str], reference: Sequence[str], cutoff: float = MATCH_CUTOFF) -> np.ndarray:
    """Boolean |found| x |reference|: True where the two names match."""
    if not found or not reference:
        return np.zeros((len(found), len(reference)), dtype=bool)
    scores = process.cdist([normalise_term(f) for f in found], [normalise_term(r) for r in reference],
                           scorer=fuzz.ratio, dtype=np.float32)
    return np.asarray(scores >= cutoff)


@dataclass(frozen=True)
class Agreement:
    found: int
    reference: int
    found_matched: int  # found units that match some reference unit
    reference_matched: int  # reference units matched by some found unit

    @property
    def precision(self) -> float:
        return self.found_matched / self.found if self.found else 0.0

    @property
    def recall(self) -> float:
        return self.reference_matched / self.reference if self.reference else 0.0

    def as_dict(self) -> dict[str, float | int]:
        return {"found": self.found, "reference": self.reference, "found_matched": self.found_matched,
                "reference_matched": self.reference_matched, "precision": round(self.precision, 4),
                "recall": round(self.recall, 4)}


def agreement(found: Sequence[str], reference: Sequence[str], cutoff: float = MATCH_CUTOFF) -> Agreement:
    matches = match_matrix(found, reference, cutoff)
    return Agreement(found=len(found), reference=len(reference),
                     found_matched=int(matches.any(axis=1).sum()) if len(reference) else 0,
                     reference_matched=int(matches.any(axis=0).sum()) if len(found) else 0)


def held_out_agreement(found: Sequence[str], train: Sequence[str], test: Sequence[str],
                       cutoff: float = MATCH_CUTOFF) -> Agreement:
    """Agreement on a held-out fold: found units that match a training unit are set aside (the judge
    was taught those), precision is over the rest and recall over the held-out units."""
    seen: list[bool] = (np.asarray(match_matrix(found, train, cutoff).any(axis=1), dtype=bool).tolist()
                        if train else [False] * len(found))
    fresh = [f for f, s in zip(found, seen, strict=True) if not s]
    test_matches = match_matrix(fresh, test, cutoff)
    return Agreement(found=len(fresh), reference=len(test),
                     found_matched=int(test_matches.any(axis=1).sum()) if test else 0,
                     reference_matched=int(match_matrix(found, test, cutoff).any(axis=0).sum()) if test else 0)
