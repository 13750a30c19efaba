"""Read a user's own ontology (OBO, or OWL in RDF/XML) with pronto: terms and is_a edges only."""

from __future__ import annotations

import hashlib
import warnings
from pathlib import Path

from scicustom.core.errors import InvalidInput
from scicustom.core.ontology.dag import OntologyDAG, OntologyNode, SourceInfo


def file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


def read_ontology_file(path: Path, source: str) -> tuple[SourceInfo, OntologyDAG]:
    import pronto  # imported lazily: only this command needs it

    if not path.is_file():
        raise InvalidInput("file", f"{path} does not exist")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # pronto warns about every unknown OBO header clause
            ontology = pronto.Ontology(str(path))
    except Exception as exc:  # pronto raises many parser-specific types
        raise InvalidInput("file", f"{path.name} is not a readable OBO/OWL file: {exc}") from exc
    nodes = []
    edges = []
    for term in ontology.terms():
        if term.obsolete:
            continue
        nodes.append(OntologyNode(
            id=term.id, label=term.name or term.id, source=source,
            synonyms=tuple(dict.fromkeys(s.description for s in term.synonyms if s.description)),
            definition=str(term.definition or ""),
        ))
        edges.extend((term.id, parent.id) for parent in term.superclasses(distance=1, with_self=False))
    if not nodes:
        raise InvalidInput("file", f"{path.name} defines no terms")
    version = str(ontology.metadata.data_version or file_digest(path))
    info = SourceInfo(name=source, version=version, origin=f"file:{path.resolve()}#sha256={file_digest(path)}")
    return info, OntologyDAG.build(source, nodes, edges)
