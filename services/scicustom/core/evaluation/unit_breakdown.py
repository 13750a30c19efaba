"""Accuracy per knowledge unit, with Wilson score intervals.

Each benchmark item counts once for every unit its provenance names (`provenance.units` of
benchmark.jsonl), so the units' counts add up to more than the benchmark when items share units.
Per-unit counts are small (often a handful of items), where the Wilson interval keeps its coverage
and never leaves [0, 1]; the whole-benchmark accuracy keeps its paired bootstrap (accuracy.py).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

Z95 = 1.959964
NO_UNIT = "(no unit)"  # items whose provenance names none (a hand-written benchmark)


def item_units(records: Iterable[Mapping[str, Any]]) -> dict[str, tuple[str, ...]]:
    """Item id -> its units, from benchmark lines; the lines were validated by `parse_benchmark`."""
    units: dict[str, tuple[str, ...]] = {}
    for record in records:
        provenance = record.get("provenance")
        named = provenance.get("units") if isinstance(provenance, Mapping) else None
        names = tuple(dict.fromkeys(str(u) for u in named)) if isinstance(named, list) else ()
        units[str(record["id"])] = names or (NO_UNIT,)
    return units


def wilson_interval(correct: int, n: int, z: float = Z95) -> tuple[float, float]:
    if n < 1 or not 0 <= correct <= n:
        raise ValueError("need 0 <= correct <= n and n >= 1")
    p = correct / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass(frozen=True)
class UnitAccuracy:
    unit: str
    n: int
    n_correct: int
    ci_low: float
    ci_high: float

    @property
    def accuracy(self) -> float:
        return self.n_correct / self.n

    def to_record(self) -> dict[str, Any]:
        return {"unit": self.unit, "n": self.n, "n_correct": self.n_correct, "accuracy": round(self.accuracy, 6),
                "ci95_wilson": {"low": round(self.ci_low, 6), "high": round(self.ci_high, 6)}}


def unit_order(units: Mapping[str, Sequence[str]]) -> list[str]:
    """Units by how many items carry them, most first; ties by name."""
    counts: dict[str, int] = {}
    for names in units.values():
        for name in names:
            counts[name] = counts.get(name, 0) + 1
    return sorted(counts, key=lambda u: (-counts[u], u))


def unit_accuracy(units: Mapping[str, Sequence[str]], correct: Mapping[str, bool]) -> list[UnitAccuracy]:
    """One model's accuracy per unit (in `unit_order`); `units`: every benchmark item's units,
    `correct`: the model's outcome per item id; an item without an outcome (its call failed)
    counts as wrong, as in the whole-benchmark accuracy."""
    tally: dict[str, list[int]] = {}
    for item_id, names in units.items():
        for name in names:
            counts = tally.setdefault(name, [0, 0])
            counts[0] += 1
            counts[1] += bool(correct.get(item_id, False))
    rows = []
    for name in unit_order(units):
        n, right = tally[name]
        low, high = wilson_interval(right, n)
        rows.append(UnitAccuracy(name, n, right, low, high))
    return rows
