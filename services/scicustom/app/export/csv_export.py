"""The CSV export: one row per question (core/export/csv_table.py) and a README."""

from __future__ import annotations

import csv
import io
from pathlib import Path

from scicustom.app.export.export_readme import export_readme
from scicustom.app.export.finished_build import FinishedBuild
from scicustom.core.export.csv_table import UNIT_SEPARATOR, csv_table
from scicustom.core.export.export_items import ROW_FIELDS

TABLE = "benchmark.csv"


def csv_files(build: FinishedBuild, out: Path) -> dict[str, str | bytes]:
    rows = csv_table(build.items)
    text = io.StringIO()
    csv.writer(text).writerows(rows)   # RFC 4180: fields with commas, quotes or newlines are quoted
    header = [str(name) for name in rows[0]]
    options = [name for name in header if len(name) == 1]
    described = "\n".join(f"- `{name}`: {meaning}" for name, meaning in ROW_FIELDS.items()
                          if name in header and name != "units")
    usage = f"""## Columns of `{TABLE}`

UTF-8, comma-separated, a header row, one row per question.

- `{options[0]}` to `{options[-1]}`: the options; a question with fewer options leaves the last columns empty
- `units`: the knowledge units the question shares with the requirement, separated by `{UNIT_SEPARATOR}`
{described}"""
    return {TABLE: text.getvalue().encode("utf-8"),
            "README.md": export_readme(build, f"{build.facts.task_name} (CSV)", usage)}
