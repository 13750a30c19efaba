"""The zero-shot baseline tagger: MiniLM similarity between an item and each knowledge unit.

Units whose cosine similarity clears a calibrated threshold are assigned (best first, at most
`max_units`, and within `margin` of the best); an item where nothing clears it is Non-Scientific.
The threshold is calibrated on real items with known science / non-science subjects: it maximises
balanced accuracy of "best similarity >= threshold" as a science detector. The trained tagger
(issue 3) must beat this baseline; it stays as the documented reference.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from scicustom.core.units import KnowledgeUnit, UnitCatalog
from scicustom.ports import Embedder, UnitScore

# MMLU subjects used for calibration. Ambiguous ones (psychology, geography) are left out.
NON_SCIENCE_SUBJECTS = frozenset({
    "business_ethics", "econometrics", "formal_logic", "global_facts", "high_school_european_history",
    "high_school_government_and_politics", "high_school_macroeconomics", "high_school_microeconomics",
    "high_school_us_history", "high_school_world_history", "international_law", "jurisprudence",
    "logical_fallacies", "management", "marketing", "miscellaneous", "moral_disputes", "moral_scenarios",
    "philosophy", "prehistory", "professional_accounting", "professional_law", "public_relations",
    "security_studies", "sociology", "us_foreign_policy", "world_religions",
})
SCIENCE_SUBJECTS = frozenset({
    "anatomy", "astronomy", "college_biology", "college_chemistry", "college_medicine", "college_physics",
    "clinical_knowledge", "conceptual_physics", "electrical_engineering", "high_school_biology",
    "high_school_chemistry", "high_school_physics", "human_aging", "medical_genetics", "nutrition",
    "professional_medicine", "virology", "college_computer_science", "high_school_mathematics",
    "college_mathematics",
})


@dataclass(frozen=True)
class ZeroShotParams:
    threshold: float
    margin: float = 0.08
    max_units: int = 5


def unit_texts(units: Sequence[KnowledgeUnit]) -> list[str]:
    return [u.describe() for u in units]


def calibrate_threshold(best_similarity: np.ndarray, is_science: np.ndarray) -> float:
    """Threshold maximising balanced accuracy of best_similarity >= t for science items."""
    if is_science.all() or not is_science.any():
        raise ValueError("calibration needs both science and non-science items")
    candidates = np.unique(np.round(best_similarity, 4))
    best_t, best_score = float(candidates[0]), -1.0
    for t in candidates:
        predicted = best_similarity >= t
        tpr = predicted[is_science].mean()
        tnr = (~predicted[~is_science]).mean()
        score = (tpr + tnr) / 2
        if score > best_score:
            best_t, best_score = float(t), float(score)
    return best_t


def assign_units(similarity: np.ndarray, unit_ids: Sequence[str], non_scientific_id: str,
                 params: ZeroShotParams) -> list[list[UnitScore]]:
    """Rows of `similarity` are items, columns the scientific units in `unit_ids` order."""
    result: list[list[UnitScore]] = []
    k = min(params.max_units, similarity.shape[1])
    top = np.argsort(-similarity, axis=1, kind="stable")[:, :k]
    for row, cols in zip(similarity, top, strict=True):
        best = float(row[cols[0]])
        chosen = [UnitScore(unit_ids[c], round(float(row[c]), 6)) for c in cols
                  if row[c] >= params.threshold and row[c] >= best - params.margin]
        result.append(chosen or [UnitScore(non_scientific_id, round(1.0 - best, 6))])
    return result


class ZeroShotTagger:
    """Implements the Tagger port over an Embedder; `version` names model, units and threshold."""

    def __init__(self, embedder: Embedder, catalog: UnitCatalog, params: ZeroShotParams) -> None:
        self._embedder = embedder
        self._units = catalog.scientific()
        self._unit_ids = [u.id for u in self._units]
        non_sci = catalog.non_scientific()
        if non_sci is None:
            raise ValueError("the unit catalog has no Non-Scientific unit")
        self._non_scientific_id = non_sci.id
        self._unit_matrix = embedder.encode(unit_texts(self._units))
        self.params = params
        # The version changes with the model, the unit texts and the parameters: tags are recomputed.
        identity = "\n".join([embedder.name, repr(params), *unit_texts(self._units)])
        self.version = f"zeroshot-{hashlib.sha256(identity.encode()).hexdigest()[:12]}"

    def similarity(self, item_vectors: np.ndarray) -> np.ndarray:
        return np.asarray(item_vectors @ self._unit_matrix.T)

    def tag_vectors(self, item_vectors: np.ndarray) -> list[list[UnitScore]]:
        return assign_units(self.similarity(item_vectors), self._unit_ids, self._non_scientific_id,
                            self.params)

    def tag(self, texts: Sequence[str], vectors: np.ndarray | None = None) -> list[list[UnitScore]]:
        """`vectors`: the texts' rows from this tagger's embedder (the Tagger port's contract)."""
        return self.tag_vectors(self._embedder.encode(texts) if vectors is None else vectors)
