"""Read the arXiv category taxonomy from the arxiv-base wheel without executing it.

`arxiv/taxonomy/definitions.py` holds the GROUPS, ARCHIVES and CATEGORIES dict literals; they are
read with `ast` (calls such as `date(...)` become None). Active entries only, test group excluded:
root "arXiv" -> group -> archive -> category, is-a read as "subfield of".
"""

from __future__ import annotations

import ast
import zipfile
from pathlib import Path
from typing import Any

from scicustom.core.errors import PreconditionFailed
from scicustom.core.ontology.dag import OntologyDAG, OntologyNode, SourceInfo

PACKAGE = "arxiv-base"
VERSION = "0.17.8"
SOURCE = "arxiv"
_MEMBER = "arxiv/taxonomy/definitions.py"
ROOT = "arXiv:root"


def _literal(node: ast.AST) -> Any:
    if isinstance(node, ast.Dict):
        return {_literal(k): _literal(v) for k, v in zip(node.keys, node.values, strict=True) if k is not None}
    if isinstance(node, ast.Constant):
        return node.value
    if isinstance(node, ast.List | ast.Tuple):
        return [_literal(e) for e in node.elts]
    return None  # date(...) and other expressions


def _tables(source: str) -> dict[str, dict[str, dict[str, Any]]]:
    tables: dict[str, dict[str, dict[str, Any]]] = {}
    for stmt in ast.parse(source).body:
        if isinstance(stmt, ast.Assign) and isinstance(stmt.value, ast.Dict):
            for target in stmt.targets:
                if isinstance(target, ast.Name) and target.id in ("GROUPS", "ARCHIVES", "CATEGORIES"):
                    tables[target.id] = _literal(stmt.value)
    return tables


def read_arxiv_taxonomy(wheel: Path) -> tuple[SourceInfo, OntologyDAG]:
    with zipfile.ZipFile(wheel) as archive:
        if _MEMBER not in archive.namelist():
            raise PreconditionFailed(f"no {_MEMBER} in {wheel.name}")
        tables = _tables(archive.read(_MEMBER).decode("utf-8"))
    if set(tables) != {"GROUPS", "ARCHIVES", "CATEGORIES"}:
        raise PreconditionFailed(f"{_MEMBER} lacks GROUPS, ARCHIVES or CATEGORIES")
    nodes = [OntologyNode(id=ROOT, label="arXiv", source=SOURCE)]
    edges: list[tuple[str, str]] = []
    for key, group in tables["GROUPS"].items():
        if not group.get("is_test"):
            nodes.append(OntologyNode(id=f"arXiv:{key}", label=str(group["name"]), source=SOURCE))
            edges.append((f"arXiv:{key}", ROOT))
    groups = {n.id for n in nodes}
    for key, archive_entry in tables["ARCHIVES"].items():
        group_id = f"arXiv:{archive_entry.get('in_group', '')}"
        if "end_date" in archive_entry or group_id not in groups:  # subsumed, or a test archive
            continue
        nodes.append(OntologyNode(id=f"arXiv:archive:{key}", label=str(archive_entry["name"]), source=SOURCE))
        edges.append((f"arXiv:archive:{key}", group_id))
    archives = {n.id for n in nodes}
    for key, category in tables["CATEGORIES"].items():
        archive_id = f"arXiv:archive:{category.get('in_archive', '')}"
        # Inactive, in a dropped archive, or an archive that is its own only category.
        if not category.get("is_active", False) or archive_id not in archives or key == category["in_archive"]:
            continue
        nodes.append(OntologyNode(id=f"arXiv:{key}", label=str(category["name"]), source=SOURCE,
                                  definition=str(category.get("description") or "")))
        edges.append((f"arXiv:{key}", archive_id))
    info = SourceInfo(name=SOURCE, version=VERSION, origin=f"{PACKAGE}=={VERSION}:{_MEMBER}")
    return info, OntologyDAG.build(SOURCE, nodes, edges)
