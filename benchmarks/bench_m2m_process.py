"""`scicustom score m2m` as a whole process (start-up, imports, reading, scoring, writing) on the
paper's 2,645 rows, against the published reference code run as a process on the same file, in one
paired run, and every score compared with the reference's (issue 17, goal 4: <= 1.0 s, >= 6x).

The reference is `benchmark.py` of github.com/Shash12-ship/Matter-to-Mechanism- (commit 2c48bf0d),
run as its README says: `python benchmark.py --csv FILE --output DIR` (all six metrics and cbs, no LLM
judge). It is not part of this repository: put it at .scicustom/cache/m2m_reference/benchmark.py or
name it in SCICUSTOM_M2M_REFERENCE; without it only our process is timed. Both processes run with
PYTHONHASHSEED=0: the TF-IDF vocabulary's ties follow Python's string-hash order, in both.
Runs alternate (reference, ours, reference, ours, ...) so that a change in the machine's load hits both;
the best wall time and the best CPU time (user + system) of each are reported.

Run: python benchmarks/bench_m2m_process.py [rows] [runs]   (writes benchmarks/results/m2m_process.json)
"""

from __future__ import annotations

import csv
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from machine_info import machine_info

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "services"))

from tests.unit.m2m.synthetic_rows import rows_to_csv, synthetic_rows  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results" / "m2m_process.json"
DEFAULT_REFERENCE = ROOT / ".scicustom" / "cache" / "m2m_reference" / "benchmark.py"
METRICS = ("rcf", "hpa", "msi", "sns", "ip", "pdq")


def timed(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system) of one process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(command, check=True, env=env, stdout=subprocess.DEVNULL, cwd=ROOT)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def our_command(csv_path: Path, output: Path) -> list[str]:
    script = Path(sys.executable).parent / "scicustom"  # the console script a user runs
    head = [str(script)] if script.exists() else [sys.executable, "-c", "from scicustom.cli import run; run()"]
    return [*head, "score", "m2m", "--input", str(csv_path), "--output", str(output)]


def differences(ours: dict[str, Any], reference_csv: Path) -> tuple[int, list[str]]:
    """How many numbers were compared, and the first few that differ from the reference's."""
    compared, differ = 0, []
    with reference_csv.open(newline="", encoding="utf-8") as handle:
        for row in csv.DictReader(handle):
            scores = ours[row["paper_id"]]
            expected = {**{f"{m}_aggregate": scores[m] for m in METRICS}, "cbs_score": scores["cbs"], **scores["sub"]}
            for column, value in expected.items():
                compared += 1
                if float(row[column]) != float(value):
                    differ.append(f"{row['paper_id']} {column}: ours {value}, reference {row[column]}")
    return compared, differ[:5]


def best(runs: list[tuple[float, float]]) -> dict[str, float]:
    return {"wall_s": round(min(w for w, _ in runs), 3), "cpu_s": round(min(c for _, c in runs), 3)}


def main() -> None:
    rows = int(sys.argv[1]) if len(sys.argv) > 1 else 2645
    runs = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    reference = Path(os.environ.get("SCICUSTOM_M2M_REFERENCE", DEFAULT_REFERENCE))
    env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": str(ROOT / "services")}
    print(f"cpu cores: {os.cpu_count()}, load average {os.getloadavg()[0]:.1f} "
          "(wall times stretch when the cores are shared; CPU times much less)")
    with tempfile.TemporaryDirectory(prefix="bench-m2m-") as folder:
        work = Path(folder)
        data = work / "hypotheses.csv"
        data.write_bytes(rows_to_csv(synthetic_rows(rows)))
        ours_runs, reference_runs = [], []
        for _ in range(runs):
            if reference.exists():
                reference_runs.append(timed([sys.executable, str(reference), "--csv", str(data),
                                             "--output", str(work / "reference")], env))
            ours_runs.append(timed(our_command(data, work / "scores.json"), env))
        ours = best(ours_runs)
        result: dict[str, Any] = {"benchmark": "m2m_process", "date": datetime.now(UTC).isoformat(timespec="seconds"),
                                  "machine": machine_info(), "rows": rows, "runs": runs, "scicustom": ours}
        print(f"rows: {rows} ({data.stat().st_size / 1e6:.1f} MB CSV), best of {runs}")
        print(f"scicustom score m2m, whole process:  wall {ours['wall_s']:6.2f} s   cpu {ours['cpu_s']:6.2f} s   "
              "(target <= 1.0 s)")
        if reference_runs:
            theirs = best(reference_runs)
            compared, differ = differences(json.loads((work / "scores.json").read_text(encoding="utf-8")),
                                           work / "reference" / "battery_benchmark_scored.csv")
            result.update({"reference": {**theirs, "script": str(reference.name)},
                           "speedup_wall": round(theirs["wall_s"] / ours["wall_s"], 2),
                           "speedup_cpu": round(theirs["cpu_s"] / ours["cpu_s"], 2),
                           "numbers_compared": compared, "numbers_identical": not differ, "first_differences": differ})
            print(f"reference benchmark.py (baseline):   wall {theirs['wall_s']:6.2f} s   cpu {theirs['cpu_s']:6.2f} s")
            print(f"speed-up:                            wall {result['speedup_wall']:.1f}x   "
                  f"cpu {result['speedup_cpu']:.1f}x   (target >= 6x)")
            print(f"numbers identical to the reference:  {not differ} ({compared} compared)")
            for line in differ:
                print(f"  differs: {line}")
        else:
            result["reference"] = None
            print(f"reference not found at {reference}: only our process was timed (see this file's docstring)")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(f"written to {RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
