"""Read the Gene Ontology from GO.sqlite inside Debian's r-bioc-go.db (no R needed).

Terms of the three GO branches (BP, MF, CC) with their definitions and synonyms (rows that are
alternative GO ids are skipped); only `isa` links become edges (part of / regulates are not is-a).
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from scicustom.core.errors import PreconditionFailed
from scicustom.core.ontology.dag import OntologyDAG, OntologyNode, SourceInfo

DEB_PACKAGE = "r-bioc-go.db"
SOURCE = "go"


def find_go_sqlite(tree: Path) -> Path:
    found = sorted(tree.rglob("GO.sqlite"))
    if not found:
        raise PreconditionFailed(f"no GO.sqlite under {tree}")
    return found[0]


def read_go_sqlite(path: Path, deb_version: str = "") -> tuple[SourceInfo, OntologyDAG]:
    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        rows = db.execute("SELECT _id, go_id, term, COALESCE(definition, '') FROM go_term "
                          "WHERE ontology IN ('BP', 'MF', 'CC')").fetchall()
        go_of = {internal: go_id for internal, go_id, _, _ in rows}
        synonyms: dict[int, list[str]] = {}
        for internal, synonym in db.execute(
                "SELECT _id, synonym FROM go_synonym WHERE like_go_id = 0 ORDER BY rowid"):
            synonyms.setdefault(internal, []).append(synonym)
        edges = []
        for table in ("go_bp_parents", "go_mf_parents", "go_cc_parents"):
            for child, parent in db.execute(
                    f"SELECT _id, _parent_id FROM {table} WHERE relationship_type = 'isa'"):
                if child in go_of and parent in go_of:
                    edges.append((go_of[child], go_of[parent]))
        meta = dict(db.execute("SELECT name, value FROM metadata").fetchall())
    finally:
        db.close()
    nodes = [OntologyNode(id=go_id, label=term, source=SOURCE,
                          synonyms=tuple(dict.fromkeys(synonyms.get(internal, ()))), definition=definition)
             for internal, go_id, term, definition in rows]
    version = str(meta.get("GOSOURCEDATE") or meta.get("GOEGSOURCEDATE") or deb_version)
    info = SourceInfo(name=SOURCE, version=version,
                      origin=f"debian:{DEB_PACKAGE}={deb_version}:GO.sqlite")
    return info, OntologyDAG.build(SOURCE, nodes, edges)
