"""`scicustom report BUILD_DIR [--out FILE]`: render a build's report.html again from its files.

Every build already writes report.html; this renders it for a folder built before reports
existed, or after diff.json was added, and gives the same bytes as the build for the same files.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from scicustom.app.report.build_report import REPORT_FILE, build_report_html, read_build_folder
from scicustom.commands.command_output import emit
from scicustom.core.atomic_files import write_text_atomic

if TYPE_CHECKING:
    from scicustom.bootstrap import Context


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser(
        "report", help="render a finished build's report.html again",
        description="Render report.html from the files of a build output folder (no network needed to view it).")
    parser.add_argument("build_dir", type=Path, metavar="BUILD_DIR", help="the --out folder of `scicustom build`")
    parser.add_argument("--out", type=Path, default=None, metavar="FILE",
                        help=f"where to write the report (default BUILD_DIR/{REPORT_FILE})")
    parser.set_defaults(handler=_report)


def _report(args: argparse.Namespace, ctx: Context) -> int:
    html = build_report_html(read_build_folder(args.build_dir), where=f"BUILD_DIR {args.build_dir}")
    out = args.out if args.out is not None else args.build_dir / REPORT_FILE
    write_text_atomic(out, html)
    emit(args, {"report": str(out), "size_bytes": len(html.encode())}, lambda: f"wrote {out}")
    return 0
