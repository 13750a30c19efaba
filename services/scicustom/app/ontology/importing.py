"""Import one source: read it, check for cycles, compute statistics, persist it into the store; and
what the store holds afterwards."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from scicustom.core.errors import InvalidInput, PreconditionFailed
from scicustom.core.ontology.cycles import break_cycles, find_cycle
from scicustom.core.ontology.dag import OntologyDAG, SourceInfo, SourceReport
from scicustom.ports import OntologyStore

log = logging.getLogger(__name__)
NOTHING_IMPORTED = "no ontology imported yet; run `scicustom ontology import`"
SourceReader = Callable[[], tuple[SourceInfo, OntologyDAG]]


@dataclass(frozen=True)
class ImportOutcome:
    source: str
    status: str  # "imported" or "skipped"


@dataclass(frozen=True)
class SourceRead:
    """One source to import; `strict` for a user's file (see `import_source`). `discard` undoes what
    preparing the read left behind (an upload this request stored), for a caller whose import failed."""

    name: str
    read: SourceReader
    strict: bool
    discard: Callable[[], None] | None = None


def import_source(store: OntologyStore, name: str, read: SourceReader, *, force: bool,
                  strict: bool) -> ImportOutcome:
    """Import one source unless it is already in the store (or `force`).

    `strict`: a cycle is the user's to fix, so it is an error naming the cycle; otherwise (packaged
    sources we cannot fix) the closing edges are removed and listed in the report.
    """
    if store.has_source(name) and not force:
        return ImportOutcome(name, "skipped")
    info, dag = read()
    if strict:
        cycle = find_cycle(dag)
        if cycle is not None:
            raise InvalidInput("file", f"is-a cycle in {name}: {' -> '.join(cycle[:12])}")
        removed: list[tuple[str, str]] = []
    else:
        removed = break_cycles(dag)
        if removed:
            log.warning("%s: removed %d is-a edges that closed cycles", name, len(removed))
    dag.compute_stats()
    store.write_source(info, dag, removed)
    return ImportOutcome(name, "imported")


def imported_sources_report(store: OntologyStore) -> list[SourceReport]:
    if not store.source_names():
        raise PreconditionFailed(NOTHING_IMPORTED)
    return store.report()


def imported_dags(store: OntologyStore, names: Sequence[str] = ()) -> list[OntologyDAG]:
    """The DAGs of `names` (every imported source when empty); each name must be imported."""
    if not store.source_names():
        raise PreconditionFailed(NOTHING_IMPORTED)
    unknown = sorted(set(names) - set(store.source_names()))
    if unknown:
        raise InvalidInput("select_units.sources", f"not imported: {unknown}")
    return list(store.load_dags(list(names) or None))
