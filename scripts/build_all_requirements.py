"""Build every packaged requirement and print one table: voted units, candidates, cutoff, jury
probes (with the ceil(log2(N+1)) + 1 bound), subset size and wall time per stage.

    .venv/bin/python scripts/build_all_requirements.py --out runs/all [--method scicustom]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import sys
from pathlib import Path

from scicustom.cli import main as scicustom
from scicustom.config import RESOURCES


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path("runs/all"))
    parser.add_argument("--method", default="scicustom")
    parser.add_argument("--only", nargs="*", default=[], help="requirement file stems to build")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    rows = []
    for path in sorted((RESOURCES / "requirements").glob("*.yaml")):
        if args.only and path.stem not in args.only:
            continue
        summary_file = args.out / f"{path.stem}.summary.json"
        with contextlib.redirect_stdout(io.StringIO()) as captured:
            code = scicustom(["build", "--requirement", str(path), "--out", str(args.out / path.stem), "--force",
                              "--method", args.method, "--summary-json", str(summary_file)])
        if code != 0:
            print(f"{path.stem}: exit {code}\n{captured.getvalue()}", file=sys.stderr)
            continue
        summary = json.loads(summary_file.read_text())
        bound = math.ceil(math.log2(summary["n_candidates"] + 1)) + 1
        rows.append((path.stem, summary, bound))
        print(f"built {path.stem}", file=sys.stderr, flush=True)
    print("| requirement | voted units (K1) | N candidates | cutoff pos | probes (bound) | within cutoff | "
          "subset | MCQs | stage times (s) |")
    print("|---|---|---|---|---|---|---|---|---|")
    for stem, s, bound in rows:
        times = ", ".join(f"{k} {v:.1f}" for k, v in s["timings_s"].items())
        print(f"| {stem} | {'; '.join(s['voted_units'])} | {s['n_candidates']} | {s['cutoff_position']} | "
              f"{s['n_probes']} ({bound}) | {s['n_within_cutoff']} | {s['subset_size']} | {s['n_mcq']} | {times} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
