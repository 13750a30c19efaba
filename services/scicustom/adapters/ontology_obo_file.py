"""Read a user's own ontology (OBO, or OWL in RDF/XML) with pronto: terms and is_a edges only.

A document is untrusted input: pronto follows `import:` / `owl:imports` clauses (URLs and local
paths) by default, so a file naming a loopback URL made the importer connect to it. Imports are
never followed here, and a document that declares any is refused, so it cannot import silently
less than its author meant.
"""

from __future__ import annotations

import hashlib
import warnings
from pathlib import Path

from scicustom.core.errors import InvalidInput
from scicustom.core.ontology.dag import OntologyDAG, OntologyNode, SourceInfo


def file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()[:16]


MAX_ONTOLOGY_BYTES = 256 * 1024 * 1024  # the Gene Ontology's OBO is ~35 MB


def read_ontology_file(path: Path, source: str) -> tuple[SourceInfo, OntologyDAG]:
    import pronto  # imported lazily: only this command needs it

    if not path.is_file():
        raise InvalidInput("file", f"{path} does not exist")
    if path.stat().st_size > MAX_ONTOLOGY_BYTES:
        raise InvalidInput("file", f"{path.name} is larger than {MAX_ONTOLOGY_BYTES} bytes")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # pronto warns about every unknown OBO header clause
            ontology = pronto.Ontology(str(path), import_depth=0)
    except Exception as exc:  # pronto raises many parser-specific types
        raise InvalidInput("file", f"{path.name} is not a readable OBO/OWL file: {exc}") from exc
    if ontology.metadata.imports:
        raise InvalidInput("file", f"{path.name} imports {len(ontology.metadata.imports)} other document(s); imports "
                                   "are never fetched: merge the imported terms into the file")
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
