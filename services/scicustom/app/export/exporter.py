"""The export use case: a finished build directory -> OUT in one format, written atomically.

OUT is a directory in every format. Each export holds a marker file, and only a directory holding
one may be replaced (--force): an export never deletes a directory it did not write.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from scicustom import __version__
from scicustom.app.build.output_writer import canonical_json, write_atomically
from scicustom.app.export.csv_export import csv_files
from scicustom.app.export.finished_build import FinishedBuild, read_finished_build
from scicustom.app.export.hf_export import hf_files
from scicustom.app.export.inspect_export import inspect_files
from scicustom.app.export.lm_eval_export import lm_eval_files
from scicustom.core.errors import InvalidInput

ExportFiles = Callable[[FinishedBuild, Path], dict[str, str | bytes]]
EXPORT_FORMATS: dict[str, ExportFiles] = {
    "lm-eval": lm_eval_files, "inspect": inspect_files, "hf": hf_files, "csv": csv_files}
MARKER = ".scicustom-export.json"


@dataclass(frozen=True)
class ExportResult:
    out: Path
    format: str
    task_name: str
    questions: int
    files: list[str]


def _is_export(directory: Path) -> bool:
    try:
        marker = json.loads((directory / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(marker, dict) and marker.get("export_format") in EXPORT_FORMATS


def check_export_target(out: Path, build_dir: Path, force: bool) -> None:
    """`out` and `build_dir` are resolved paths."""
    if out == build_dir or out in build_dir.parents:
        raise InvalidInput("OUT", f"{out} holds BUILD_DIR; export somewhere else")
    if not out.exists():
        return
    if not force:
        raise InvalidInput("OUT", f"{out} already exists; pass --force to replace an earlier export")
    if not out.is_dir():
        raise InvalidInput("OUT", f"{out} exists and is not a directory")
    if not _is_export(out):
        raise InvalidInput("OUT", f"{out} was not written by `scicustom export` (no {MARKER}); not replacing it")


def export_build(build_dir: Path, out: Path, export_format: str, *, force: bool = False) -> ExportResult:
    if export_format not in EXPORT_FORMATS:
        raise InvalidInput("--format", f"{export_format!r} is not one of {', '.join(EXPORT_FORMATS)}")
    build = read_finished_build(build_dir)
    target = out.resolve()
    check_export_target(target, build_dir.resolve(), force)
    files = EXPORT_FORMATS[export_format](build, target)
    files[MARKER] = canonical_json({
        "export_format": export_format, "scicustom_version": __version__, "questions": len(build.items),
        "requirement": build.facts.requirement_name, "benchmark_sha256": build.facts.benchmark_sha256})
    try:
        write_atomically(target, files)
    except OSError as exc:
        raise InvalidInput("OUT", f"cannot write {target}: {exc.strerror or exc}") from None
    return ExportResult(target, export_format, build.facts.task_name, len(build.items), sorted(files))
