"""`ontology agreement`: how well Algorithm 1 with the offline judge recovers the default units,
cross-validated over the units, with the recall ceiling and the (optimistic) in-sample figures."""

from __future__ import annotations

from collections.abc import Callable
from contextlib import closing
from pathlib import Path
from typing import Any

from scicustom.app.ontology.importing import imported_dags
from scicustom.app.ontology.judge_training import (
    cross_validate,
    in_sample,
    recall_ceiling,
    training_inputs,
    units_with_selected_anchor,
)
from scicustom.app.ontology.unit_keywords import read_unit_set
from scicustom.app.ontology.workspace import OntologyWorkspace
from scicustom.core.atomic_files import write_json_atomic
from scicustom.core.errors import InvalidInput
from scicustom.core.ontology.agreement import agreement
from scicustom.core.ontology.unit_selection import MIN_DESCENDANTS
from scicustom.core.units import NON_SCIENTIFIC
from scicustom.ports import LabelVectors, OntologyStore


def judge_agreement(open_store: Callable[[], OntologyStore], workspace: OntologyWorkspace, *, folds: int,
                    default_units: Path, label_vectors: Callable[[], LabelVectors],
                    out: Path | None = None) -> dict[str, Any]:
    """The agreement report, written to `out` (default: the workspace's judge_agreement.json)."""
    if folds < 2:
        raise InvalidInput("folds", "must be at least 2")
    with closing(open_store()) as store:
        dags = imported_dags(store)
    bench, exemplars = training_inputs(dags, MIN_DESCENDANTS, workspace.keywords_file, label_vectors)
    defaults = [str(u["name"]) for u in read_unit_set(default_units)["knowledge_units"]
                if u["name"] != NON_SCIENTIFIC]
    report: dict[str, Any] = {
        "reference_units": len(defaults),
        "exemplars_with_training_anchors": len({u for us in exemplars.anchored.values() for u in us}),
        "judged_nodes": len(bench.keys),
        "ceiling": recall_ceiling(bench, defaults),
        "cross_validation": cross_validate(bench, exemplars, folds=folds),
    }
    _, result = in_sample(bench, exemplars)
    report["in_sample"] = {"units_found": len(result.units), "judged": dict(result.labels),
                           "visited": result.visited, **agreement(result.unit_names(), defaults).as_dict(),
                           "units_with_selected_anchor": units_with_selected_anchor(
                               result, exemplars, set(range(len(exemplars.names)))),
                           "note": "trained on every default unit: not a held-out figure"}
    write_json_atomic(out or workspace.judge_agreement, report)
    return report
