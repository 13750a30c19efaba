"""JSON Lines input: one object per non-blank line, errors naming the source and the line."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from scicustom.core.errors import InvalidInput


def parse_jsonl(lines: Iterable[str], where: str, *, line_mark: str = " line ") -> Iterator[tuple[str, dict[str, Any]]]:
    """(location, object) per non-blank line; `location` is `where`, `line_mark` and the line number."""
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        location = f"{where}{line_mark}{number}"
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InvalidInput(location, f"not JSON: {exc.msg}") from None
        if not isinstance(row, dict):
            raise InvalidInput(location, "expected a JSON object")
        yield location, row


def read_jsonl(path: Path, flag: str) -> list[tuple[str, dict[str, Any]]]:
    """A whole JSONL file; a missing file is the caller's `flag` at fault. Locations read
    "<flag> <file name>:<line>", as compilers name a line."""
    if not path.is_file():
        raise InvalidInput(flag, f"{path} does not exist")
    with path.open(encoding="utf-8") as handle:
        return list(parse_jsonl(handle, f"{flag} {path.name}", line_mark=":"))
