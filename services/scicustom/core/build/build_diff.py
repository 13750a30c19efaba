"""What changed between two builds of a requirement (`diff.json` of `build --since PREVIOUS`).

Both builds are read from their rendered files (benchmark.jsonl, coverage.json, voting.json,
config.json), so a build made by an older version or on another profile can be the previous one.
Questions are matched by their id (the corpus item or instance they came from).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from scicustom.core.errors import InvalidInput
from scicustom.core.jsonl import jsonl_lines

BUILD_FILES = ("benchmark.jsonl", "coverage.json", "voting.json", "config.json")


def parse_build_files(files: Mapping[str, str], where: str) -> dict[str, Any]:
    """The parts of a build's files a diff compares; a missing or unreadable file names `where`."""
    missing = [name for name in BUILD_FILES if name not in files]
    if missing:
        raise InvalidInput(where, f"not a build output: {', '.join(missing)} missing")
    try:
        questions = [json.loads(line) for line in jsonl_lines(files["benchmark.jsonl"]) if line.strip()]
        parsed = {name: json.loads(files[name]) for name in BUILD_FILES[1:]}
        ids = [str(q["id"]) for q in questions]
    except (ValueError, KeyError, TypeError) as exc:
        raise InvalidInput(where, f"unreadable build output: {exc}") from None
    return {"ids": ids, **parsed}


def _unit_rows(coverage: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    return {str(u["id"]): u for u in coverage.get("units", [])}


def _voted(voting: Mapping[str, Any]) -> dict[str, str]:
    return {str(u["id"]): str(u.get("name", u["id"])) for u in voting.get("units", [])}


def build_diff(previous: Mapping[str, Any], current: Mapping[str, Any], previous_ref: str) -> dict[str, Any]:
    """`previous`/`current`: `parse_build_files` of each build; `previous_ref`: its directory or build id."""
    before, after = set(previous["ids"]), set(current["ids"])
    voted_before, voted_after = _voted(previous["voting.json"]), _voted(current["voting.json"])
    rows_before, rows_after = _unit_rows(previous["coverage.json"]), _unit_rows(current["coverage.json"])
    changed = []
    for unit in sorted(set(rows_before) | set(rows_after)):
        old, new = rows_before.get(unit, {}), rows_after.get(unit, {})
        fields = {k: (old.get(k), new.get(k)) for k in ("corpus_items", "relevant", "in_benchmark")}
        if any(a != b for a, b in fields.values()):
            changed.append({"id": unit, "name": new.get("name", old.get("name", unit)),
                            **{k: {"before": a, "after": b} for k, (a, b) in fields.items()}})
    old_config, new_config = previous["config.json"], current["config.json"]
    return {
        "previous": previous_ref,
        "requirement_changed": old_config.get("requirement") != new_config.get("requirement"),
        "corpus": {"before": old_config.get("corpus", {}), "after": new_config.get("corpus", {})},
        "questions": {
            "added": [i for i in current["ids"] if i not in before],
            "removed": [i for i in previous["ids"] if i not in after],
            "kept": [i for i in current["ids"] if i in before],
            "n_before": len(previous["ids"]), "n_after": len(current["ids"]),
        },
        "voted_units": {
            "gained": [{"id": u, "name": n} for u, n in voted_after.items() if u not in voted_before],
            "lost": [{"id": u, "name": n} for u, n in voted_before.items() if u not in voted_after],
        },
        "coverage_changed": changed,
    }


def diff_summary(diff: Mapping[str, Any]) -> str:
    q = diff["questions"]
    return (f"since {diff['previous']}: {len(q['added'])} questions added, {len(q['removed'])} removed, "
            f"{len(q['kept'])} kept; {len(diff['coverage_changed'])} voted units changed coverage")
