"""`ontology units` and OntologyService's `select_units`: Algorithm 1 over the imported DAGs with
the offline judge (trained on the anchored default units) or an LLM judge, as a unit set."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from scicustom.app.ontology.importing import imported_dags
from scicustom.app.ontology.unit_sets import selection_to_unit_set
from scicustom.core.errors import InvalidInput
from scicustom.core.ontology.dag import OntologyDAG
from scicustom.core.ontology.keywords import MAX_KEYWORDS
from scicustom.core.ontology.llm_judge import LLMGranularityJudge
from scicustom.core.ontology.unit_selection import MIN_DESCENDANTS, SelectionResult, select_units
from scicustom.ports import LLM, LabelVectors, OntologyStore

JUDGES = ("offline", "llm")
Progress = Callable[[SelectionResult], None]


@dataclass(frozen=True)
class UnitSelectionRequest:
    """Checked on construction; fields are named as in ImportOntologyRequest.select_units."""

    judge: str = "offline"
    model: str = ""  # litellm model name, judge "llm" only
    sources: Sequence[str] = field(default_factory=tuple)  # DAGs to traverse; empty = every imported one
    min_descendants: int = MIN_DESCENDANTS
    max_keywords: int = MAX_KEYWORDS

    def __post_init__(self) -> None:
        if self.judge not in JUDGES:
            raise InvalidInput("select_units.judge", f"{self.judge!r} is not 'offline' or 'llm'")
        if self.judge == "llm" and not self.model:
            raise InvalidInput("select_units.model", "judge 'llm' needs a litellm model name")
        if self.min_descendants < 1:
            raise InvalidInput("select_units.min_descendants", "must be at least 1")
        if self.max_keywords < 1:
            raise InvalidInput("select_units.max_keywords", "must be at least 1")


@dataclass(frozen=True)
class JudgeInputs:
    """What the judges need, built only when used: the LLM for judge "llm"; the anchored default
    units and the label vectors for the offline judge."""

    llm: Callable[[], LLM]
    keywords_file: Path
    label_vectors: Callable[[], LabelVectors]


@dataclass(frozen=True)
class UnitSelection:
    judge: str  # the judge's name: "offline-..." or "llm:<model>"
    result: SelectionResult
    unit_set: dict[str, Any]
    unparsed: list[tuple[str, str]]  # (term, answer) of LLM answers that named no label


def select_from_dags(dags: Sequence[OntologyDAG], request: UnitSelectionRequest, judges: JudgeInputs, *,
                     progress: Progress | None = None) -> UnitSelection:
    """`progress` runs after every LLM judgement (a server stops there once its caller has given up)."""
    if request.judge == "llm":
        llm_judge = LLMGranularityJudge(judges.llm(), request.model)
        result = select_units(dags, llm_judge, min_descendants=request.min_descendants, progress=progress)
        name, unparsed = llm_judge.name, list(llm_judge.unparsed)
    else:
        # Imported here: the offline judge's model (scikit-learn) takes seconds to import.
        from scicustom.app.ontology.judge_training import offline_selection

        offline_judge, result = offline_selection(dags, request.min_descendants, judges.keywords_file,
                                                  judges.label_vectors)
        name, unparsed = offline_judge.name, []
    unit_set = selection_to_unit_set(result, dags, judge_name=name, max_keywords=request.max_keywords)
    return UnitSelection(judge=name, result=result, unit_set=unit_set, unparsed=unparsed)


def select_imported_units(open_store: Callable[[], OntologyStore], request: UnitSelectionRequest,
                          judges: JudgeInputs, *, progress: Progress | None = None) -> UnitSelection:
    with closing(open_store()) as store:
        dags = imported_dags(store, request.sources)
    return select_from_dags(dags, request, judges, progress=progress)
