"""Per-target case counts of a fuzz run, written as they grow to FUZZ_COUNTS_FILE.

Hypothesis prints its statistics only for targets that finished; a target stopped on time (the
slowest ones take hours on 2 cores) would report nothing. Its observability callback sees every
test case, so the counts are kept here instead: {target: {status: cases}}.
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

from hypothesis.internal import observability

FUZZ_COUNTS_FILE = Path(".hypothesis") / "fuzz-counts.json"
WRITE_EVERY = 200


class CaseCounts:
    def __init__(self, path: Path = FUZZ_COUNTS_FILE) -> None:
        self.path = path
        self.counts: dict[str, Counter[str]] = {}
        self.seen = 0

    def __call__(self, observation: Any) -> None:
        if observation.type != "test_case":
            return
        self.counts.setdefault(observation.property, Counter())[observation.status] += 1
        self.seen += 1
        if self.seen % WRITE_EVERY == 0:
            self.write()

    def write(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text(json.dumps({k: dict(v) for k, v in sorted(self.counts.items())}, indent=1) + "\n")


def start_counting() -> CaseCounts:
    counts = CaseCounts()
    # Observing cases would also make Hypothesis trace line coverage of every case (several times
    # slower on Python 3.11); Hypothesis documents this switch as one to patch.
    observability.OBSERVABILITY_COLLECT_COVERAGE = False
    observability.add_observability_callback(counts)
    return counts
