"""`scicustom score m2m` scores a file importing only what scoring needs (issue 17: the whole process
in about a second), so a heavy import slipped into its path fails here instead of slowing it silently."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from tests.unit.m2m.synthetic_rows import rows_to_csv, synthetic_rows

HEAVY = ("pandas", "sklearn", "scipy", "torch", "sympy", "pint", "textstat", "transformers", "pydantic",
         "pydantic_settings", "opentelemetry.sdk", "pyarrow", "litellm", "grpc", "scicustom.bootstrap",
         "scicustom.config")
ROOT = Path(__file__).resolve().parents[3]


def _imported_while_scoring(tmp_path: Path, argv: list[str]) -> tuple[int, list[str]]:
    probe = ("import sys\nfrom scicustom.cli import main\n"
             f"code = main({argv!r})\n"
             f"print('HEAVY', [m for m in {HEAVY!r} if m in sys.modules], code, file=sys.stderr)\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "services")}
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True, env=env,
                          cwd=tmp_path)
    line = next(x for x in done.stderr.splitlines() if x.startswith("HEAVY"))
    heavy, code = line.removeprefix("HEAVY ").rsplit(" ", 1)
    return int(code), json.loads(heavy.replace("'", '"'))


def test_scoring_a_csv_imports_no_heavy_package(tmp_path: Path) -> None:
    (tmp_path / "in.csv").write_bytes(rows_to_csv(synthetic_rows(30, seed=3)))
    code, heavy = _imported_while_scoring(tmp_path, ["score", "m2m", "--input", "in.csv", "--output", "out.json"])
    assert (code, heavy) == (0, [])
    assert len(json.loads((tmp_path / "out.json").read_text())) == 30


def test_a_csv_only_pandas_can_read_still_scores(tmp_path: Path) -> None:
    rows = synthetic_rows(12, seed=4)
    for i, row in enumerate(rows):
        row["score_hint"] = f"{i}.5"  # a float column: pandas decides how it reads, so pandas reads the file
    (tmp_path / "in.csv").write_bytes(rows_to_csv(rows))
    code, heavy = _imported_while_scoring(tmp_path, ["score", "m2m", "--input", "in.csv", "--output", "out.json"])
    assert code == 0 and "pandas" in heavy
