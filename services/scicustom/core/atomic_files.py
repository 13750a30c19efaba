"""The one way the platform writes a local file: a reader sees the old file or the whole new one.

The bytes go to a sibling temporary file created like any other file (so the umask applies and the
result is shareable, unlike `mkstemp`'s 0600), are flushed to disk, then renamed over the target.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any


def write_bytes_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex}.tmp")
    try:
        with tmp.open("xb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def write_text_atomic(path: Path, text: str) -> None:
    write_bytes_atomic(path, text.encode("utf-8"))


def write_json_atomic(path: Path, payload: Any, *, indent: int = 2) -> None:
    """Pretty JSON (non-ASCII kept, NaN refused) and a final newline."""
    write_text_atomic(path, json.dumps(payload, indent=indent, ensure_ascii=False, allow_nan=False) + "\n")


def write_jsonl_atomic(path: Path, rows: Iterable[Mapping[str, Any]]) -> None:
    """One compact JSON object per line (non-ASCII kept)."""
    write_text_atomic(path, "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows))
