"""JSON and JSONL files for scorer commands: rows read with their line named in errors, outputs
written to a temporary file and renamed, so a reader never sees half a file."""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from scicustom.core.errors import InvalidInput


def read_jsonl(path: Path, flag: str) -> list[tuple[str, dict[str, Any]]]:
    """(where, row) pairs; `where` names the flag and line for error messages."""
    if not path.is_file():
        raise InvalidInput(flag, f"{path} does not exist")
    rows = []
    with path.open(encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            where = f"{flag} {path.name}:{number}"
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InvalidInput(where, f"not JSON: {exc.msg}") from exc
            if not isinstance(row, dict):
                raise InvalidInput(where, "expected a JSON object")
            rows.append((where, row))
    return rows


def write_atomically(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_json(path: Path, data: Mapping[str, Any]) -> None:
    write_atomically(path, json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False) + "\n")


def write_jsonl(path: Path, rows: Iterable[Mapping[str, Any]]) -> None:
    write_atomically(path, "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows))
