"""`make bench`: runs every benchmarks/bench_*.py in turn; each prints its own figures.

Figures are ratios against a baseline measured in the same run, plus the machine's core count.
"""

from __future__ import annotations

import os
import runpy
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    only = sys.argv[1:]
    print(f"machine: {os.cpu_count()} cores")
    for script in sorted((ROOT / "benchmarks").glob("bench_*.py")):
        if only and not any(name in script.stem for name in only):
            continue
        print(f"\n== {script.stem} ==", flush=True)
        runpy.run_path(str(script), run_name="__main__")
    return 0


if __name__ == "__main__":
    sys.exit(main())
