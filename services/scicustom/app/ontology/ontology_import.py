"""The import use case (`ontology import`, OntologyService.ImportOntology): the requested sources
into the store, the store's report written, then optionally Algorithm 1 over what is imported."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import closing
from dataclasses import dataclass
from functools import partial

from scicustom.app.ontology.importing import ImportOutcome, SourceRead, import_source, imported_dags
from scicustom.app.ontology.unit_selection import JudgeInputs, UnitSelection, UnitSelectionRequest, select_from_dags
from scicustom.app.ontology.workspace import OntologyWorkspace
from scicustom.core.atomic_files import write_json_atomic
from scicustom.core.ontology.dag import SourceReport
from scicustom.ports import OntologyStore


@dataclass(frozen=True)
class OntologyImport:
    outcomes: list[ImportOutcome]  # one per source read, in order
    reports: list[SourceReport]  # every source in the store afterwards
    selection: UnitSelection | None  # when a selection was requested


def import_ontologies(open_store: Callable[[], OntologyStore], workspace: OntologyWorkspace,
                      reads: Sequence[SourceRead], *, force: bool,
                      selection: tuple[UnitSelectionRequest, JudgeInputs] | None = None,
                      checkpoint: Callable[[], None] | None = None,
                      on_outcome: Callable[[ImportOutcome], None] | None = None) -> OntologyImport:
    """`checkpoint` runs before each source, before the selection and after every LLM judgement:
    a server raises there once its caller has given up."""
    step = checkpoint or _no_checkpoint
    # A user's file is parsed before the store is opened: one that does not parse leaves nothing
    # behind, not even a first, empty store (packaged sources are read in turn, as they are large).
    parsed = {i: source.read() for i, source in enumerate(reads) if source.strict}
    with closing(open_store()) as store:
        outcomes = []
        for i, source in enumerate(reads):
            step()
            read = partial(parsed.__getitem__, i) if source.strict else source.read
            outcome = import_source(store, source.name, read, force=force, strict=source.strict)
            outcomes.append(outcome)
            if on_outcome is not None:
                on_outcome(outcome)
        reports = store.report()
        write_json_atomic(workspace.import_report, {"sources": [r.as_dict() for r in reports]})
        chosen = None
        if selection is not None:
            request, judges = selection
            step()
            dags = imported_dags(store, request.sources)
            chosen = select_from_dags(dags, request, judges, progress=lambda _: step())
        return OntologyImport(outcomes, reports, chosen)


def _no_checkpoint() -> None:
    return None
