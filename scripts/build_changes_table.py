"""A Markdown table of what changed between two sets of builds, from their `diff.json` files.

Each build under ROOT was made with `scicustom build ... --since PREVIOUS` (for instance once per
packaged requirement, before and after a retag), so each folder holds a `diff.json`:

    python scripts/build_changes_table.py ROOT
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any


def row(name: str, diff: dict[str, Any]) -> str:
    questions, units = diff["questions"], diff["voted_units"]
    gained = ", ".join(u["name"] for u in units["gained"]) or "-"
    lost = ", ".join(u["name"] for u in units["lost"]) or "-"
    return (f"| {name} | {questions['n_before']} -> {questions['n_after']} | {len(questions['kept'])} / "
            f"{len(questions['added'])} / {len(questions['removed'])} | {gained} | {lost} |")


def main(argv: list[str]) -> int:
    if len(argv) != 1 or not Path(argv[0]).is_dir():
        print("usage: build_changes_table.py ROOT (a folder of build folders made with --since)", file=sys.stderr)
        return 2
    diffs = sorted(Path(argv[0]).glob("*/diff.json"))
    if not diffs:
        print(f"build_changes_table.py: no */diff.json under {argv[0]}", file=sys.stderr)
        return 2
    print("| requirement | MCQs | kept / added / removed | voted units gained | voted units lost |")
    print("|---|---|---|---|---|")
    for path in diffs:
        print(row(path.parent.name, json.loads(path.read_text(encoding="utf-8"))))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
