"""`--since`: the previous build a new one is compared with, and the `diff.json` it gains.

The previous build is read before anything runs, so a wrong `--since` costs nothing; the diff is
rendered with the other files and written in the same atomic rename.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from scicustom.app.build.build_records import BuildRecords
from scicustom.app.build.output_writer import canonical_json
from scicustom.app.report.build_report import REPORT_FILE, build_report_html
from scicustom.app.tenancy import LOCAL_TENANT
from scicustom.core.build.build_diff import BUILD_FILES, build_diff, parse_build_files
from scicustom.core.errors import InvalidInput
from scicustom.ports import ObjectStore


def previous_build_dir(path: Path, field: str = "--since") -> dict[str, Any]:
    """A build output directory, parsed for the diff."""
    if not path.is_dir():
        raise InvalidInput(field, f"{path} is not a directory")
    files = {name: (path / name).read_text(encoding="utf-8") for name in BUILD_FILES if (path / name).is_file()}
    return parse_build_files(files, field)


def previous_stored_build(store: ObjectStore, build_id: str, tenant: str = LOCAL_TENANT) -> dict[str, Any]:
    """A distributed build's outputs in the object store (the tenant's), parsed for the diff."""
    records = BuildRecords(store, build_id, tenant)
    files = {name: store.get_bytes(records.output_key(name)).decode("utf-8") for name in BUILD_FILES
             if store.exists(records.output_key(name))}
    return parse_build_files(files, "since_build_id")


def with_diff(files: Mapping[str, str], previous: Mapping[str, Any] | None, previous_ref: str) -> dict[str, str]:
    """`files` plus `diff.json` against `previous` (unchanged when there is none)."""
    out = dict(files)
    if previous is not None:
        current = parse_build_files(files, "build")
        out["diff.json"] = canonical_json(build_diff(previous, current, previous_ref))
        if REPORT_FILE in out:  # the report shows the diff too
            out[REPORT_FILE] = build_report_html(out)
    return out
