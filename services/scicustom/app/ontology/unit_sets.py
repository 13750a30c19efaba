"""Turn an Algorithm 1 selection into a unit set in the format of resources/knowledge_units.json.

Units are named after their node's label (first letter capitalised, like the default set); nodes of
different sources with the same normalised label become one unit with several anchors. Each unit's
keywords come from its own node(s), as for the default units, and the Non-Scientific unit the paper
adds is appended last. `encode_unit_set` gives the file's bytes, the same for `ontology units --out`
and for the copy OntologyService publishes to the object store.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from scicustom.core.ontology.anchoring import Anchor, normalise_term
from scicustom.core.ontology.dag import OntologyDAG
from scicustom.core.ontology.keywords import derive_keywords
from scicustom.core.ontology.unit_selection import SelectionResult
from scicustom.core.units import NON_SCIENTIFIC

UNIT_SETS_PREFIX = "ontology/unit-sets/"  # object-store prefix of the unit sets OntologyService selects

# The domain field of a unit selected from a source (informative only, as in the default set).
SOURCE_DOMAINS: dict[str, str] = {
    "chebi": "chemistry", "go": "biology", "cl": "biology", "pato": "biology", "efo": "biology",
    "uberon": "anatomy", "mondo": "medicine", "nasa": "physics", "edam": "biology", "arxiv": "other",
}


class BlobStore(Protocol):
    """Content-addressed blobs: `put` returns the key the bytes are stored under."""

    def put(self, data: bytes) -> str: ...


@dataclass(frozen=True)
class PublishedUnitSet:
    key: str
    sha256: str


def unit_name(label: str) -> str:
    label = " ".join(label.split())
    return label[:1].upper() + label[1:] if label[:1].islower() else label


def selection_to_unit_set(result: SelectionResult, dags: Sequence[OntologyDAG], *, judge_name: str,
                          max_keywords: int) -> dict[str, Any]:
    by_source = {dag.source: dag for dag in dags}
    grouped: dict[str, list[Anchor]] = {}
    names: dict[str, str] = {}
    for unit in result.units:
        key = normalise_term(unit.node.label)
        names.setdefault(key, unit_name(unit.node.label))
        grouped.setdefault(key, []).append(
            Anchor(unit.node.source, unit.node.id, unit.node.label, "selected", 1.0))
    units: list[dict[str, Any]] = []
    for i, (key, anchors) in enumerate(grouped.items(), start=1):
        units.append({
            "id": f"ku_{i:03d}",
            "name": names[key],
            "domain": SOURCE_DOMAINS.get(anchors[0].source, "other"),
            "keywords": derive_keywords(names[key], anchors, by_source, cap=max_keywords).keywords,
            "anchors": [a.as_dict() for a in anchors],
        })
    units.append({"id": f"ku_{len(units) + 1:03d}", "name": NON_SCIENTIFIC, "domain": "non-scientific",
                  "keywords": [], "anchors": []})
    return {
        "version": "1.0.0",
        "description": (f"Knowledge units selected by Algorithm 1 (granularity DFS, backtrack below the "
                        f"descendant threshold) with judge {judge_name} over sources "
                        f"{', '.join(sorted(by_source))}."),
        "n_units": len(units),
        "selection": {"judge": judge_name, "visited": result.visited, "judged": dict(result.labels),
                      "backtracked_small": result.backtracked_small},
        "knowledge_units": units,
    }


def encode_unit_set(unit_set: dict[str, Any]) -> bytes:
    """The unit set file's bytes: indented JSON, non-ASCII kept, a final newline."""
    return (json.dumps(unit_set, indent=2, ensure_ascii=False) + "\n").encode()


def publish_unit_set(unit_sets: BlobStore, unit_set: dict[str, Any]) -> PublishedUnitSet:
    data = encode_unit_set(unit_set)
    return PublishedUnitSet(key=unit_sets.put(data), sha256=hashlib.sha256(data).hexdigest())
