"""Reading a finished build's directory: the questions of benchmark.jsonl and the facts of
config.json and voting.json. A missing or unreadable file is bad input naming that file."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scicustom.core.errors import InvalidInput
from scicustom.core.export.build_facts import BuildFacts, build_facts
from scicustom.core.export.export_items import ExportItem, export_items
from scicustom.core.jsonl import jsonl_lines

BUILD_FILES = ("benchmark.jsonl", "config.json", "voting.json")


@dataclass(frozen=True)
class FinishedBuild:
    path: Path
    facts: BuildFacts
    items: list[ExportItem]


def _read_text(path: Path) -> tuple[str, bytes]:
    if not path.is_file():
        raise InvalidInput(str(path), "missing: BUILD_DIR is not a finished build")
    try:
        data = path.read_bytes()
        return data.decode("utf-8"), data
    except OSError as exc:
        raise InvalidInput(str(path), f"cannot read: {exc.strerror}") from None
    except UnicodeDecodeError:
        raise InvalidInput(str(path), "not UTF-8") from None


def _read_json(path: Path) -> Any:
    text, _ = _read_text(path)
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidInput(str(path), f"not JSON: {exc.msg} (line {exc.lineno})") from None


def read_finished_build(build_dir: Path) -> FinishedBuild:
    if not build_dir.is_dir():
        raise InvalidInput("BUILD_DIR", f"{build_dir} is not a directory")
    benchmark = build_dir / "benchmark.jsonl"
    text, data = _read_text(benchmark)
    items = export_items(jsonl_lines(text), str(benchmark))
    config_path, voting_path = build_dir / "config.json", build_dir / "voting.json"
    facts = build_facts(_read_json(config_path), _read_json(voting_path), hashlib.sha256(data).hexdigest(),
                        config_where=str(config_path), voting_where=str(voting_path))
    return FinishedBuild(build_dir, facts, items)
