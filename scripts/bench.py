"""`make bench`: runs every benchmarks/bench_*.py in turn; each prints its own figures.

Figures are ratios against a baseline measured in the same run, plus the machine's core count.
At the end, a summary of the benchmarks/results/*.json files this run wrote: one line per figure
(a JSON object with a ratio-like key: ratio, *ratio*, speedup*, efficiency) with its value and
baseline where the file has them. The files differ in shape, so this reads what is there.
"""

from __future__ import annotations

import json
import os
import runpy
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results"
BASELINE_PREFIXES = ("baseline", "before", "original", "reference")


def _is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_ratio(key: str) -> bool:
    return "ratio" in key or key.startswith("speedup") or key == "efficiency"


def _is_measure(key: str) -> bool:
    return "per_" in key or key.endswith(("_s", "_ms", "seconds"))


def _label(index: int, item: Any) -> str:
    """A list element's name: its first scalar field (e.g. [workers=2]), else its index."""
    if isinstance(item, dict):
        for key, value in item.items():
            if isinstance(value, str | int | float) and not isinstance(value, bool):
                return f"[{key}={value}]"
    return f"[{index}]"


def figures(node: Any, path: str = "", baseline: Any = None) -> Iterator[tuple[str, str, str, str]]:
    """(name, value, baseline, ratios) for every object in `node` that carries a ratio-like number."""
    if isinstance(node, list):
        for index, item in enumerate(node):
            yield from figures(item, path + _label(index, item), baseline)
        return
    if not isinstance(node, dict):
        return
    if isinstance(node.get("baseline"), str | int | float):
        baseline = node["baseline"]
    ratios = {k: v for k, v in node.items() if _is_ratio(k) and _is_number(v)}
    if ratios:
        measures = {k: v for k, v in node.items() if _is_measure(k) and _is_number(v)}
        base = {k: v for k, v in measures.items() if k.startswith(BASELINE_PREFIXES)}
        rates_first = sorted((k for k in measures if k not in base), key=lambda k: "per_" not in k)
        value = (rates_first[0], measures[rates_first[0]]) if rates_first else None
        shown_base = next(iter(base.items()), None) or (("", baseline) if baseline is not None else None)
        yield (path or "(top)", f"{value[0]}={value[1]}" if value else "-",
               (f"{shown_base[0]}={shown_base[1]}" if shown_base[0] else str(shown_base[1])) if shown_base else "-",
               " ".join(f"{k}={v}" for k, v in ratios.items()))
    for key, value in node.items():
        if isinstance(value, dict | list):
            yield from figures(value, f"{path}.{key}" if path else key, baseline)


def summary(since: float) -> None:
    written = sorted(p for p in RESULTS.glob("*.json") if p.stat().st_mtime >= since)
    print(f"\n== summary: {len(written)} result file(s) written in this run ==")
    for path in written:
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            print(f"{path.stem}: unreadable ({exc})")
            continue
        lines = list(figures(data))
        if not lines:
            keys = ", ".join(list(data)[:8]) if isinstance(data, dict) else type(data).__name__
            print(f"{path.stem}: no ratio in the file (keys: {keys})")
        for name, value, base, ratios in lines:
            print(f"{path.stem} {name}: value {value}; baseline {base}; {ratios}")


def main() -> int:
    only = sys.argv[1:]
    started = time.time()
    print(f"machine: {os.cpu_count()} cores")
    sys.path.insert(0, str(ROOT / "benchmarks"))  # as when a benchmark runs as a script: its helper modules
    try:
        for script in sorted((ROOT / "benchmarks").glob("bench_*.py")):
            if only and not any(name in script.stem for name in only):
                continue
            print(f"\n== {script.stem} ==", flush=True)
            runpy.run_path(str(script), run_name="__main__")
    finally:
        summary(started)
    return 0


if __name__ == "__main__":
    sys.exit(main())
