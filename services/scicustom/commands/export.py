"""`scicustom export --format {lm-eval,inspect,hf,csv} BUILD_DIR OUT [--force]`: a finished build's
benchmark as files other evaluation tools load.

- lm-eval: lm-evaluation-harness task YAMLs and their data file (`lm_eval --include_path OUT`)
- inspect: inspect_ai Sample records and a task file (`inspect eval OUT/<task>.py`)
- hf: a Hugging Face `datasets` folder (`datasets.load_from_disk(OUT)`) with its dataset card
- csv: one row per question

Every export has a README.md with the requirement, the voted units, the licence of each source and
the build's provenance. OUT must not exist, or be an earlier export (--force). Bad input: exit 2.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from scicustom.app.export.exporter import EXPORT_FORMATS, export_build
from scicustom.commands.command_output import emit

if TYPE_CHECKING:
    from scicustom.bootstrap import Context

_LOAD_HINTS = {
    "lm-eval": "lm_eval --model hf --model_args pretrained=<model> --include_path {out} --tasks {task}",
    "inspect": "inspect eval {out}/{task}.py --model <model>",
    "hf": "datasets.load_from_disk({out!r})",
    "csv": "{out}/benchmark.csv",
}


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser(
        "export", help="write a build's benchmark for lm-eval, inspect_ai, Hugging Face datasets or CSV",
        description="Write the benchmark of a finished build (the directory `scicustom build --out` wrote) "
                    "in a format another evaluation tool loads, with a README of its provenance and licences.")
    parser.add_argument("--format", required=True, choices=list(EXPORT_FORMATS), help="what to write")
    parser.add_argument("build_dir", metavar="BUILD_DIR", type=Path, help="a finished build's directory")
    parser.add_argument("out", metavar="OUT", type=Path, help="the export's directory (must not exist)")
    parser.add_argument("--force", action="store_true", help="replace OUT if an earlier `scicustom export` wrote it")
    parser.set_defaults(handler=_export)


def _export(args: argparse.Namespace, ctx: Context) -> int:
    result = export_build(args.build_dir, args.out, args.format, force=args.force)
    emit(args, result, lambda: (
        f"exported {result.questions} questions ({result.format}) to {result.out}: {', '.join(result.files)}\n"
        "use it: " + _LOAD_HINTS[result.format].format(out=str(result.out), task=result.task_name)))
    return 0
