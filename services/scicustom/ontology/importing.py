"""`ontology import`: read sources, check for cycles, compute statistics, persist into the store."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass

from scicustom.adapters.ontology_store import OntologyStore
from scicustom.core.errors import InvalidInput
from scicustom.core.ontology.cycles import break_cycles, find_cycle
from scicustom.core.ontology.dag import OntologyDAG, SourceInfo

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class ImportOutcome:
    source: str
    status: str  # "imported" or "skipped"


def import_source(store: OntologyStore, name: str, read: Callable[[], tuple[SourceInfo, OntologyDAG]],
                  *, force: bool, strict: bool) -> ImportOutcome:
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
