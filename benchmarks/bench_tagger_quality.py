"""Tagger quality: `scicustom tagger evaluate` on the current trained tagger of SCICUSTOM_HOME.

Prints, in one run, the trained tagger beside both zero-shot baselines (unit names; names plus
K_v) on the hand-labelled real questions (resources/tagger_gold: `dev` tunes, `heldout` only
measures: micro/macro F1 with the paper's fuzzy matching, top-1 hit, domain agreement), on the
paper's synthetic protocol, and the top-unit domain agreement on weakly known held-out items.
Run: `python benchmarks/bench_tagger_quality.py` after `make setup`.
"""

from __future__ import annotations

import sys

from scicustom.cli import main

if __name__ == "__main__":
    sys.exit(main(["tagger", "evaluate"]))
