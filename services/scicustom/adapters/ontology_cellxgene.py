"""Read ChEBI, UBERON, MONDO, CL, PATO and EFO from the cellxgene-ontology-guide wheel.

Each `data/<PREFIX>-ontology-<version>.json.zst` maps a term id to its label, synonyms,
description and ancestors with their distance; distance 1 is a direct parent. cellxgene builds those
ancestors from is_a and part_of links, so the parents here include part_of where the source has it.
Deprecated terms are skipped. The newest version is the one `latest_ontology_info.json` names.
"""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path
from typing import Any

import zstandard

from scicustom.core.errors import InvalidInput
from scicustom.core.ontology.dag import OntologyDAG, OntologyNode, SourceInfo

PACKAGE = "cellxgene-ontology-guide"
VERSION = "1.11.1"
PREFIXES = ("CHEBI", "UBERON", "MONDO", "CL", "PATO", "EFO")
_DATA = "cellxgene_ontology_guide/data/"


def read_cellxgene(wheel: Path, prefix: str) -> tuple[SourceInfo, OntologyDAG]:
    with zipfile.ZipFile(wheel) as archive:
        latest = json.loads(archive.read(_DATA + "latest_ontology_info.json"))["ontologies"]
        if prefix not in latest:
            raise InvalidInput("source", f"{prefix} is not in {wheel.name}")
        version = str(latest[prefix]["version"])
        member = f"{_DATA}{prefix}-ontology-{version}.json.zst"
        with archive.open(member) as compressed:
            terms: dict[str, dict[str, Any]] = json.load(
                zstandard.ZstdDecompressor().stream_reader(io.BufferedReader(compressed)))  # type: ignore[arg-type]
    source = prefix.lower()
    nodes = []
    edges = []
    for term_id, term in terms.items():
        if term.get("deprecated"):
            continue
        nodes.append(OntologyNode(
            id=term_id, label=str(term.get("label") or term_id), source=source,
            synonyms=tuple(dict.fromkeys(str(s) for s in term.get("synonyms") or ())),
            definition=str(term.get("description") or ""),
        ))
        edges.extend((term_id, parent) for parent, distance in term["ancestors"].items() if distance == 1)
    info = SourceInfo(name=source, version=version, origin=f"{PACKAGE}=={VERSION}:{member}")
    return info, OntologyDAG.build(source, nodes, edges)
