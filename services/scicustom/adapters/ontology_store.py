"""The ontology store: one SQLite file holding every imported source's DAG.

Tables: `sources` (one row per source: version, origin, counts, removed cycle edges), `nodes`
(source, id, label, synonyms and related terms as JSON lists, definition, and the structural
statistics Algorithm 1 reads), `edges` (source, child, parent: is-a). A source is written in one
transaction, so a reader sees the old source or the new one, never a mix. SQLite because it is in
the standard library, queryable by hand, and a source can be replaced without rewriting the others.
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Sequence
from pathlib import Path

from scicustom.core.ontology.dag import NodeStats, OntologyDAG, OntologyNode, SourceInfo, SourceReport

_SCHEMA = """
CREATE TABLE IF NOT EXISTS sources (
  name TEXT PRIMARY KEY, version TEXT NOT NULL, origin TEXT NOT NULL, imported_at REAL NOT NULL,
  terms INTEGER NOT NULL, edges INTEGER NOT NULL, roots INTEGER NOT NULL, max_depth INTEGER NOT NULL,
  dropped_edges INTEGER NOT NULL, cycle_edges TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS nodes (
  source TEXT NOT NULL, id TEXT NOT NULL, label TEXT NOT NULL, synonyms TEXT NOT NULL,
  definition TEXT NOT NULL, related TEXT NOT NULL, n_descendants INTEGER NOT NULL, n_children INTEGER NOT NULL,
  n_parents INTEGER NOT NULL, depth INTEGER NOT NULL, height INTEGER NOT NULL,
  PRIMARY KEY (source, id));
CREATE TABLE IF NOT EXISTS edges (source TEXT NOT NULL, child TEXT NOT NULL, parent TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS edges_by_source ON edges (source);
"""


class SqliteOntologyStore:
    """The OntologyStore port on one SQLite file."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._db = sqlite3.connect(str(path), timeout=30)
        self._db.executescript(_SCHEMA)
        self._db.commit()

    def close(self) -> None:
        self._db.close()

    def source_names(self) -> list[str]:
        return [r[0] for r in self._db.execute("SELECT name FROM sources ORDER BY name")]

    def has_source(self, name: str) -> bool:
        return self._db.execute("SELECT 1 FROM sources WHERE name = ?", (name,)).fetchone() is not None

    def write_source(self, info: SourceInfo, dag: OntologyDAG, cycle_edges: Sequence[tuple[str, str]]) -> None:
        if not dag.stats:
            dag.compute_stats()
        roots = dag.roots()
        with self._db:  # one transaction: replace the source whole
            for table in ("nodes", "edges"):
                self._db.execute(f"DELETE FROM {table} WHERE source = ?", (info.name,))
            self._db.execute("DELETE FROM sources WHERE name = ?", (info.name,))
            self._db.executemany(
                "INSERT INTO nodes VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                ((info.name, n.id, n.label, json.dumps(list(n.synonyms), ensure_ascii=False), n.definition,
                  json.dumps(list(n.related), ensure_ascii=False), s.n_descendants, s.n_children, s.n_parents,
                  s.depth, s.height)
                 for n, s in ((node, dag.stats[nid]) for nid, node in dag.nodes.items())))
            self._db.executemany("INSERT INTO edges VALUES (?, ?, ?)",
                                 ((info.name, c, p) for c, p in dag.edges()))
            self._db.execute(
                "INSERT INTO sources VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (info.name, info.version, info.origin, time.time(), len(dag), dag.n_edges, len(roots),
                 max((s.depth for s in dag.stats.values()), default=0), dag.dropped_edges,
                 json.dumps([list(e) for e in cycle_edges])))

    def remove_source(self, name: str) -> None:
        with self._db:
            for table in ("nodes", "edges"):
                self._db.execute(f"DELETE FROM {table} WHERE source = ?", (name,))
            self._db.execute("DELETE FROM sources WHERE name = ?", (name,))

    def report(self) -> list[SourceReport]:
        rows = self._db.execute(
            "SELECT name, version, origin, terms, edges, roots, max_depth, dropped_edges, cycle_edges "
            "FROM sources ORDER BY name").fetchall()
        return [SourceReport(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7],
                             [(c, p) for c, p in json.loads(r[8])]) for r in rows]

    def load_dag(self, name: str) -> OntologyDAG:
        nodes = []
        stats = {}
        for nid, label, synonyms, definition, related, n_desc, n_children, n_parents, depth, height in (
                self._db.execute("SELECT id, label, synonyms, definition, related, n_descendants, n_children, "
                                 "n_parents, depth, height FROM nodes WHERE source = ?", (name,))):
            nodes.append(OntologyNode(id=nid, label=label, source=name, synonyms=tuple(json.loads(synonyms)),
                                      definition=definition, related=tuple(json.loads(related))))
            stats[nid] = NodeStats(n_descendants=n_desc, n_children=n_children, n_parents=n_parents,
                                   depth=depth, height=height)
        edges = self._db.execute("SELECT child, parent FROM edges WHERE source = ?", (name,)).fetchall()
        dag = OntologyDAG.build(name, nodes, edges)
        dag.stats = stats
        return dag

    def load_dags(self, names: Sequence[str] | None = None) -> list[OntologyDAG]:
        wanted = self.source_names() if not names else list(names)
        return [self.load_dag(name) for name in wanted if self.has_source(name)]
