"""Write a build's files all at once: into a hidden sibling directory, then one rename.

A failed build leaves no half-written output directory; files are serialised canonically (sorted
keys, fixed float rounding upstream) so equal inputs and seed give byte-identical files.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from scicustom.core.errors import InvalidInput


def canonical_json(obj: Any) -> str:
    return json.dumps(obj, sort_keys=True, ensure_ascii=False, indent=1) + "\n"


def canonical_json_line(row: Mapping[str, Any]) -> str:
    """One line of a JSONL file (e.g. benchmark.jsonl), without its newline."""
    return json.dumps(row, sort_keys=True, ensure_ascii=False)


def canonical_jsonl(rows: Iterable[Mapping[str, Any]]) -> str:
    return "".join(canonical_json_line(r) + "\n" for r in rows)


def is_previous_build(out: Path) -> bool:
    """A folder a build wrote: its config.json names the scicustom version that wrote it."""
    try:
        config = json.loads((out / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(config, dict) and "scicustom_version" in config


def check_output_dir(out: Path, force: bool, field: str = "--out") -> None:
    """`--force` replaces an empty folder or a previous build, nothing else: pointed at the wrong
    folder (a thesis, a home directory) it must refuse, not delete. `field` names the flag in errors."""
    if not out.exists():
        return
    if not force:
        raise InvalidInput(field, f"{out} already exists; pass --force to replace it")
    if not out.is_dir():
        raise InvalidInput(field, f"{out} exists and is not a directory")
    if any(out.iterdir()) and not is_previous_build(out):
        raise InvalidInput(field, f"{out} is not a previous build (no config.json written by scicustom); "
                                    "--force replaces only builds: choose another folder or empty it")


def write_atomically(out: Path, files: Mapping[str, str | bytes]) -> None:
    """Replaces `out` if it exists: the caller ran check_output_dir before the build. Text is
    written as UTF-8, bytes as they are (downloaded artifacts)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        for name, content in files.items():
            if isinstance(content, bytes):
                (staging / name).write_bytes(content)
            else:
                (staging / name).write_text(content, encoding="utf-8")
        if out.exists():
            retired = out.with_name(f".{out.name}.old")
            shutil.rmtree(retired, ignore_errors=True)
            out.rename(retired)
            staging.rename(out)
            shutil.rmtree(retired, ignore_errors=True)
        else:
            staging.rename(out)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
