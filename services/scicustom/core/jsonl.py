"""JSON Lines input: one object per non-blank line, errors naming the source and the line."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from scicustom.core.errors import InvalidInput


class NotJSON(ValueError):
    """A text that json.loads cannot take; the message says why, without a traceback's detail."""


def json_loads(text: str) -> Any:
    """json.loads with every way a line can fail as NotJSON: not only a syntax error, but nesting
    deeper than the interpreter's stack and an integer past Python's 4300-digit conversion limit."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise NotJSON(exc.msg) from None
    except RecursionError:
        raise NotJSON("nested too deeply") from None
    except ValueError as exc:  # "Exceeds the limit (4300 digits) for integer string conversion ..."
        raise NotJSON(str(exc).split(";")[0].split(":")[0]) from None


def jsonl_lines(text: str) -> list[str]:
    """The lines of a JSON Lines text. Only a line feed ends one: str.splitlines also breaks at
    characters a JSON string may hold unescaped (U+0085, U+2028, U+2029), and a corpus question holding
    U+0085 split its benchmark row in two (a build then failed)."""
    return text.split("\n")


def parse_jsonl(lines: Iterable[str], where: str, *, line_mark: str = " line ") -> Iterator[tuple[str, dict[str, Any]]]:
    """(location, object) per non-blank line; `location` is `where`, `line_mark` and the line number."""
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        location = f"{where}{line_mark}{number}"
        try:
            row = json_loads(line)
        except NotJSON as exc:
            raise InvalidInput(location, f"not JSON: {exc}") from None
        if not isinstance(row, dict):
            raise InvalidInput(location, "expected a JSON object")
        yield location, row


def read_jsonl(path: Path, flag: str) -> list[tuple[str, dict[str, Any]]]:
    """A whole JSONL file; a missing file is the caller's `flag` at fault. Locations read
    "<flag> <file name>:<line>", as compilers name a line."""
    if not path.is_file():
        raise InvalidInput(flag, f"{path} does not exist")
    try:
        with path.open(encoding="utf-8") as handle:
            return list(parse_jsonl(handle, f"{flag} {path.name}", line_mark=":"))
    except UnicodeDecodeError:
        raise InvalidInput(flag, f"{path.name} is not UTF-8 text") from None
