"""Error taxonomy of the paper's Table 4: threshold rules over the six metric aggregates.

Thresholds are those of the reference release (`full_benchmark.py`, ERROR_CATEGORIES). Table 4 lists
"fluent but misaligned" (high rcf, low hpa), which that release does not define: it is written here with
the release's own "high rcf" (> 0.65) and "low hpa" (< 0.10) thresholds. The release's extra category
"plausible but wrong target" (high ip, low hpa) is reported too, marked as not in Table 4. A metric that
was not computed (sns of a --group-by group that was too small) fails every rule that reads it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from scicustom.core.m2m.scoring import ScoredRow


@dataclass(frozen=True)
class Bound:
    metric: str
    above: float | None = None  # the metric must be strictly greater
    below: float | None = None  # the metric must be strictly smaller

    def holds(self, aggregates: Mapping[str, float | None]) -> bool:
        value = aggregates.get(self.metric)
        if value is None:
            return False
        if self.above is not None and not value > self.above:
            return False
        return not (self.below is not None and not value < self.below)


@dataclass(frozen=True)
class ErrorCategory:
    name: str
    label: str
    bounds: tuple[Bound, ...]
    in_table4: bool = True

    def matches(self, row: ScoredRow) -> bool:
        return all(bound.holds(row.aggregates) for bound in self.bounds)


CATEGORIES = (
    ErrorCategory("high_alignment_weak_mechanism", "High alignment, weak mechanism",
                  (Bound("hpa", above=0.25), Bound("msi", below=0.15))),
    ErrorCategory("novel_but_implausible", "Novel but implausible",
                  (Bound("sns", above=0.75), Bound("ip", below=0.40))),
    ErrorCategory("verbose_weak_decomposition", "Verbose, weak decomposition",
                  (Bound("rcf", above=0.65), Bound("pdq", below=0.45))),
    ErrorCategory("fluent_but_misaligned", "Fluent but misaligned",
                  (Bound("rcf", above=0.65), Bound("hpa", below=0.10))),
    ErrorCategory("specific_but_not_novel", "Specific but not novel",
                  (Bound("msi", above=0.25), Bound("sns", below=0.65))),
    ErrorCategory("plausible_wrong_target", "Plausible but wrong target",
                  (Bound("ip", above=0.55), Bound("hpa", below=0.10)), in_table4=False),
)


def row_errors(row: ScoredRow, categories: Sequence[ErrorCategory] = CATEGORIES) -> list[str]:
    return [c.name for c in categories if c.matches(row)]


def taxonomy_report(rows: Sequence[ScoredRow], systems: Sequence[str] | None = None,
                    categories: Sequence[ErrorCategory] = CATEGORIES) -> dict[str, object]:
    """Fraction of rows in each category, overall and per system (rounded to 4 decimals)."""
    flags = [[c.matches(row) for c in categories] for row in rows]
    groups: dict[str, list[int]] = {}
    if systems is not None:
        for i, system in enumerate(systems):
            groups.setdefault(system, []).append(i)
    report: dict[str, object] = {}
    for k, category in enumerate(categories):
        per_system = {name: _rate([flags[i][k] for i in members]) for name, members in sorted(groups.items())}
        report[category.name] = {
            "label": category.label,
            "rule": " and ".join(_describe(b) for b in category.bounds),
            "in_table4": category.in_table4,
            "overall": _rate([f[k] for f in flags]),
            "per_system": per_system,
        }
    return report


def _rate(values: Sequence[bool]) -> float:
    return round(sum(values) / len(values), 4) if values else 0.0


def _describe(bound: Bound) -> str:
    parts = []
    if bound.above is not None:
        parts.append(f"{bound.metric} > {bound.above}")
    if bound.below is not None:
        parts.append(f"{bound.metric} < {bound.below}")
    return " and ".join(parts)
