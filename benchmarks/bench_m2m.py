"""M2M metrics: time to score a realistic 2,645-row input (the paper's benchmark size), vectorised
implementation against the naive row-by-row parity oracle, measured in the same run.

Run: python benchmarks/bench_m2m.py [rows]
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "services"))

from scicustom.app.scoring.m2m import load_vocabulary  # noqa: E402
from scicustom.core.m2m.records import records_from_csv  # noqa: E402
from scicustom.core.m2m.scoring import score_records  # noqa: E402
from tests.unit.m2m.naive_m2m import naive_scores  # noqa: E402
from tests.unit.m2m.synthetic_rows import rows_to_csv, synthetic_rows  # noqa: E402


def best_of(runs: int, action):  # type: ignore[no-untyped-def]
    """Best wall time and best CPU time (all threads) of `runs` runs, and the last result."""
    walls, cpus, result = [], [], None
    for _ in range(runs):
        wall, cpu = time.perf_counter(), time.process_time()
        result = action()
        walls.append(time.perf_counter() - wall)
        cpus.append(time.process_time() - cpu)
    return min(walls), min(cpus), result


def main() -> None:
    rows = int(sys.argv[1]) if len(sys.argv) > 1 else 2645
    vocabulary = load_vocabulary()
    data = rows_to_csv(synthetic_rows(rows))
    read_s, read_cpu, records = best_of(3, lambda: records_from_csv(data, vocabulary.text_columns))
    fast_s, fast_cpu, fast = best_of(3, lambda: score_records(records, vocabulary))
    naive_s, naive_cpu, naive = best_of(1, lambda: naive_scores(records, vocabulary))
    same = all(f.cbs == n["cbs"] and all(n["scores"][k] == v for k, v in f.sub.items())
               for f, n in zip(fast, naive, strict=True))
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"cpu cores: {os.cpu_count()}, load average {load:.1f} (wall times stretch when the cores are shared)")
    print(f"rows: {rows} ({len(data) / 1e6:.1f} MB CSV)")
    print(f"read CSV (csv module, parity):  wall {read_s:6.3f} s   cpu {read_cpu:6.3f} s")
    print(f"score, vectorised:              wall {fast_s:6.3f} s   cpu {fast_cpu:6.3f} s")
    print(f"score, naive row-by-row:        wall {naive_s:6.3f} s   cpu {naive_cpu:6.3f} s")
    print(f"read + score, vectorised:       wall {read_s + fast_s:6.3f} s   (target < 3 s; reference < 90 s)")
    print(f"speed-up vs naive:              wall {naive_s / fast_s:.2f}x   cpu {naive_cpu / fast_cpu:.2f}x")
    print(f"identical scores:               {same}")


if __name__ == "__main__":
    main()
