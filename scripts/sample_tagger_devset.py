"""Draw the items of the tagger's real-question development set (reproducible, seeded).

Science items only, stratified by source (and MMLU subject) so every source and domain is present.
Writes the items to label by hand, with their split (about 40% `heldout`, chosen by a hash of the
id so it never depends on the labels). Their labels, made by reading under
resources/tagger_gold/RUBRIC.md, are in resources/tagger_gold/devset.jsonl (under services/scicustom/).

    python scripts/sample_tagger_devset.py --store .scicustom/store --out /tmp/sample.jsonl
"""

from __future__ import annotations

import argparse
import hashlib
import json
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq

MMLU_SCIENCE = (
    "anatomy", "astronomy", "clinical_knowledge", "college_biology", "college_chemistry", "college_medicine",
    "college_physics", "conceptual_physics", "high_school_biology", "high_school_chemistry",
    "high_school_physics", "human_aging", "medical_genetics", "nutrition", "professional_medicine", "virology",
)
PER_SOURCE = {"mmlu": 200, "medmcqa": 110, "medqa": 50, "arc": 70, "openbookqa": 40, "sciq": 50, "lab_bench": 20}
HELDOUT_SHARE = 0.4
SEED = 20261125


def split_of(item_id: str) -> str:
    digest = int(hashlib.sha256(item_id.encode()).hexdigest()[:8], 16)
    return "heldout" if digest / 0xFFFFFFFF < HELDOUT_SHARE else "dev"


def source_counts(text: str) -> dict[str, int]:
    """`mmlu=400,arc=500` -> {"mmlu": 400, "arc": 500}; a bad pair is a usage error naming it."""
    counts = {}
    for pair in text.split(","):
        source, _, n = pair.partition("=")
        if source not in PER_SOURCE or not n.isdigit():
            raise argparse.ArgumentTypeError(f"{pair!r}: expected SOURCE=N with SOURCE one of {sorted(PER_SOURCE)}")
        counts[source] = int(n)
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", type=Path, default=Path(".scicustom/store"))
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--scale", type=float, default=1.0, help="multiply the per-source counts")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--exclude", type=Path, help="a JSONL file whose ids are not drawn again")
    parser.add_argument("--split", help="give every drawn item this split instead of the id hash")
    parser.add_argument("--counts", type=source_counts,
                        help="per-source counts instead of the scaled defaults, e.g. mmlu=400,arc=500")
    args = parser.parse_args()
    counts = args.counts or {s: round(n * args.scale) for s, n in PER_SOURCE.items()}
    excluded = set()
    if args.exclude:
        excluded = {json.loads(line)["id"] for line in args.exclude.read_text(encoding="utf-8").split("\n") if line}
    rows = pq.read_table(args.store / "corpus/items.parquet").to_pylist()
    rng = np.random.default_rng(args.seed)
    chosen = []
    for source, n in counts.items():
        pool = sorted((r for r in rows if r["source"] == source and r["id"] not in excluded
                       and (source != "mmlu" or r["subject"] in MMLU_SCIENCE)), key=lambda r: r["id"])
        picks = rng.choice(len(pool), size=min(n, len(pool)), replace=False)
        chosen += [pool[i] for i in sorted(picks)]
    with args.out.open("w", encoding="utf-8") as handle:
        for r in chosen:
            record = {"id": r["id"], "source": r["source"], "licence": r["licence"], "subject": r["subject"],
                      "split": args.split or split_of(r["id"]), "question": r["question"], "options": r["options"],
                      "answer": r["answer"]}
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    print(f"wrote {len(chosen)} items to {args.out}")


if __name__ == "__main__":
    main()
