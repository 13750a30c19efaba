"""Weak labels for real corpus items: zero-shot similarity restricted by the subject prior.

A science item gets the units most similar to it among the units of its subject's domains (the
best one and those within `margin` of it, at most `max_units`), plus the unit naming the subject
where there is one; an item whose best similarity is below the floor keeps only the subject unit,
or no label at all. Non-science subjects are labelled Non-Scientific.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from scicustom.core.tagger_training.subject_priors import ANY_SCIENCE, SubjectPrior


@dataclass(frozen=True)
class WeakLabelParams:
    margin: float = 0.03
    max_units: int = 3
    min_similarity: float = 0.3
    # Items known only to be "science" (ARC, OpenBookQA, SciQ) need a clearer match.
    open_min_similarity: float = 0.42


class WeakLabeller:
    def __init__(self, unit_ids: Sequence[str], unit_domains: Sequence[str], unit_names: Mapping[str, str],
                 non_scientific_id: str, params: WeakLabelParams = WeakLabelParams()) -> None:
        """`unit_ids`/`unit_domains`: the similarity columns (scientific units); `unit_names`: name -> id."""
        self._ids = list(unit_ids)
        self._domains = np.asarray(unit_domains)
        self._by_name = {k.casefold(): v for k, v in unit_names.items()}
        self._non_scientific_id = non_scientific_id
        self.params = params

    def label(self, similarity: np.ndarray, prior: SubjectPrior) -> list[str] | None:
        if prior.non_scientific:
            return [self._non_scientific_id]
        allowed = np.isin(self._domains, sorted(prior.domains))
        subject_ids = [self._by_name[n.casefold()] for n in prior.subject_units if n.casefold() in self._by_name]
        if not allowed.any():
            return subject_ids or None
        masked = np.where(allowed, similarity, -np.inf)
        order = np.argsort(-masked, kind="stable")
        best = float(masked[order[0]])
        floor = self.params.open_min_similarity if prior.domains == ANY_SCIENCE else self.params.min_similarity
        if best < floor:
            return subject_ids or None
        chosen = [self._ids[i] for i in order[: self.params.max_units]
                  if masked[i] >= best - self.params.margin]
        chosen += [u for u in subject_ids if u not in chosen]
        return chosen
