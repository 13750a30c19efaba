"""Read EDAM (bioinformatics topics, operations, data, formats) from the edam-ontology wheel's
EDAM.tsv: class IRI, preferred label, synonyms and parents separated by '|', obsolete flag."""

from __future__ import annotations

import csv
import io
import zipfile
from pathlib import Path

from scicustom.core.errors import PreconditionFailed
from scicustom.core.ontology.dag import OntologyDAG, OntologyNode, SourceInfo

PACKAGE = "edam-ontology"
VERSION = "1.25.3"
SOURCE = "edam"
_PREFIX = "http://edamontology.org/"


def _edam_id(iri: str) -> str:
    return "EDAM:" + iri.removeprefix(_PREFIX)


def read_edam(wheel: Path) -> tuple[SourceInfo, OntologyDAG]:
    with zipfile.ZipFile(wheel) as archive:
        members = [n for n in archive.namelist() if n.endswith("EDAM.tsv")]
        if not members:
            raise PreconditionFailed(f"no EDAM.tsv in {wheel.name}")
        text = archive.read(members[0]).decode("utf-8")
    rows = csv.DictReader(io.StringIO(text), delimiter="\t")
    nodes = []
    edges = []
    for row in rows:
        iri = row.get("Class ID", "")
        if not iri.startswith(_PREFIX) or row.get("Obsolete", "").upper() == "TRUE":
            continue
        synonyms = [s for s in (row.get("Synonyms") or "").split("|")
                    if s and not s.startswith("http") and ":" not in s]
        nodes.append(OntologyNode(id=_edam_id(iri), label=row.get("Preferred Label") or iri, source=SOURCE,
                                  synonyms=tuple(dict.fromkeys(synonyms)),
                                  definition=(row.get("Definitions") or "").split("|")[0]))
        edges.extend((_edam_id(iri), _edam_id(p)) for p in (row.get("Parents") or "").split("|")
                     if p.startswith(_PREFIX))
    info = SourceInfo(name=SOURCE, version=VERSION, origin=f"{PACKAGE}=={VERSION}:{members[0]}")
    return info, OntologyDAG.build(SOURCE, nodes, edges)
