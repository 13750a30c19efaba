"""Proxy-subset selector at corpus scale (issue 17, goal 5): `select_proxy_subset` on 200k x 384
clustered embeddings (K2=100, 100 candidate subsets), against the original procedure measured in the
same run.

The original (float64 scikit-learn KMeans, n_init=3, on every row; scipy W1 per subset) took ~190 s
on the full 200k rows, too long for a shared machine, so it is timed on a 20k-row slice of the same
data, where the new procedure is timed too (a same-size ratio); the 200k figure of the original is
that time x 10, labelled as extrapolated (k-means cost grows linearly with the rows). Quality: the
W1(hardness) + W1(quality) each procedure reaches on the 20k slice and, over several seeds, on 4k rows.
Each measurement runs in its own process; its peak RSS is taken after the input is built, so it is
what the selection itself adds.

Run: python benchmarks/bench_selector.py [rows]   (writes benchmarks/results/selector.json)
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
from machine_info import machine_info

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "services"))

from scicustom.core.build.proxy_subset import select_proxy_subset  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results" / "selector.json"
DIMENSIONS = 384
TOPICS = 300  # clusters in the synthetic data (more than K2, as in a real corpus)
K2 = 100
SUBSETS = 100
ORIGINAL_ROWS = 20_000
QUALITY_ROWS = 4_000
QUALITY_SEEDS = (0, 1, 2, 3, 4)


def synthetic(rows: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Unit-norm float32 embeddings around TOPICS centres (like MiniLM's), heavy-tailed hardness,
    Flesch-like quality; built a block at a time so the input is held once, in float32."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((TOPICS, DIMENSIONS), dtype=np.float32)
    embeddings = np.empty((rows, DIMENSIONS), dtype=np.float32)
    for start in range(0, rows, 20_000):
        block = embeddings[start:start + 20_000]
        block[:] = centres[rng.integers(TOPICS, size=len(block))]
        block += 0.6 * rng.standard_normal(block.shape, dtype=np.float32)
        block /= np.linalg.norm(block, axis=1, keepdims=True)
    hardness = np.exp(rng.normal(2.0, 1.0, size=rows))
    quality = rng.normal(50.0, 20.0, size=rows)
    return embeddings, hardness, quality


def peak_rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def child(procedure: str, rows: int, seed: int) -> None:
    """One timed selection; prints its figures as one JSON line."""
    embeddings, hardness, quality = synthetic(rows)
    before = rss_mib()
    with contextlib.suppress(OSError):  # reset the high-water mark, so the peak is the selection's own
        Path("/proc/self/clear_refs").write_text("5")
    exact_max_rows = rows if procedure == "original" else 0
    start = time.perf_counter()
    result = select_proxy_subset(embeddings, hardness, quality, K2, SUBSETS, seed, exact_max_rows=exact_max_rows)
    seconds = time.perf_counter() - start
    print(json.dumps({"seconds": round(seconds, 3), "w1_total": result.w1_total, "clusters": result.n_clusters,
                      "input_rss_mib": round(before, 1), "peak_rss_mib": round(peak_rss_mib(), 1),
                      "peak_over_input_mib": round(peak_rss_mib() - before, 1), "indices": result.indices[:5]}))


def measure(procedure: str, rows: int, seed: int = 0) -> dict[str, Any]:
    done = subprocess.run([sys.executable, __file__, "--child", procedure, str(rows), str(seed)],
                          check=True, capture_output=True, text=True, cwd=ROOT)
    figures: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return figures


def main() -> None:
    rows = int(sys.argv[1]) if len(sys.argv) > 1 else 200_000
    print(f"cpu cores: {os.cpu_count()}, load average {os.getloadavg()[0]:.1f} "
          "(wall times stretch when the cores are shared)")
    new_full = measure("sampled", rows)
    repeat = measure("sampled", rows)
    original = measure("original", ORIGINAL_ROWS)
    new_slice = measure("sampled", ORIGINAL_ROWS)
    quality = [{"seed": s, "original": measure("original", QUALITY_ROWS, s)["w1_total"],
                "sampled": measure("sampled", QUALITY_ROWS, s)["w1_total"]} for s in QUALITY_SEEDS]
    new_s, old_s = new_full["seconds"], original["seconds"]
    extrapolated = old_s * rows / ORIGINAL_ROWS
    same_size_ratio = old_s / new_slice["seconds"]
    result = {
        "benchmark": "selector", "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": machine_info(numpy=np.__version__),
        "input": {"rows": rows, "dimensions": DIMENSIONS, "k2": K2, "subsets": SUBSETS, "topics": TOPICS},
        "sampled_full": new_full, "sampled_full_repeat_identical": new_full["indices"] == repeat["indices"],
        "original_slice": {"rows": ORIGINAL_ROWS, **original}, "sampled_slice": {"rows": ORIGINAL_ROWS, **new_slice},
        "original_full_extrapolated_s": round(extrapolated, 1),
        "speedup_full_vs_extrapolated": round(extrapolated / new_s, 1),
        "speedup_same_size": round(same_size_ratio, 1),
        "quality_by_seed": quality,
    }
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(f"rows: {rows} x {DIMENSIONS}, K2={K2}, {SUBSETS} candidate subsets")
    print(f"sampled k-means, {rows} rows:     {new_s:7.2f} s   peak RSS over input "
          f"{new_full['peak_over_input_mib']} MiB (input {new_full['input_rss_mib']} MiB)   target < 3 s")
    print(f"  same subset when run again:       {result['sampled_full_repeat_identical']}")
    print(f"original, {ORIGINAL_ROWS} rows (baseline):  {old_s:7.2f} s   peak RSS over input "
          f"{original['peak_over_input_mib']} MiB")
    print(f"sampled k-means, {ORIGINAL_ROWS} rows:       {new_slice['seconds']:7.2f} s   "
          f"same size: {same_size_ratio:.1f}x faster")
    print(f"original at {rows} rows, extrapolated x{rows // ORIGINAL_ROWS}: {extrapolated:7.1f} s   "
          f"-> {extrapolated / new_s:.0f}x faster")
    print(f"W1 total on {ORIGINAL_ROWS} rows:  original {original['w1_total']:.4f}   "
          f"sampled {new_slice['w1_total']:.4f}   (lower is better)")
    for entry in quality:
        print(f"W1 total on {QUALITY_ROWS} rows, seed {entry['seed']}: original {entry['original']:.4f}   "
              f"sampled {entry['sampled']:.4f}")
    mean_old = sum(e["original"] for e in quality) / len(quality)
    mean_new = sum(e["sampled"] for e in quality) / len(quality)
    print(f"mean over seeds: original {mean_old:.4f}   sampled {mean_new:.4f}   ratio {mean_new / mean_old:.2f}")
    print(f"written to {RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
    else:
        main()
