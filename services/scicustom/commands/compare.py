"""`scicustom compare --rankings A.json B.json`: how well two model rankings agree.

Spearman rho and Kendall tau-b with their p-values (scipy) and top-1 agreement over the models
both rankings contain, as in SciCustom Tables 1-2. A ranking is `ranking.json` or `results.json`
of `scicustom evaluate`, or a plain `{"model": score}` object. Fewer than 2 common models: exit 2.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scicustom.app.evaluation import compare
from scicustom.core.atomic_files import write_text_atomic
from scicustom.core.errors import InvalidInput
from scicustom.core.evaluation.ranking import read_ranking

if TYPE_CHECKING:
    from scicustom.bootstrap import Context


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser("compare", help="rank correlation and top-1 agreement of two model rankings")
    parser.add_argument("--rankings", type=Path, nargs=2, required=True, metavar=("A.json", "B.json"),
                        help="two rankings (e.g. the reference benchmark's and a built benchmark's)")
    parser.add_argument("--out", type=Path, default=None, help="also write the report here (JSON)")
    parser.set_defaults(handler=_compare)


def _load(path: Path) -> dict[str, float]:
    try:
        document: Any = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InvalidInput("--rankings", f"cannot read {path}: {exc.strerror}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InvalidInput("--rankings", f"{path} is not JSON: {exc}") from None
    return read_ranking(document, f"--rankings {path}")


def _compare(args: argparse.Namespace, ctx: Context) -> int:
    path_a, path_b = args.rankings
    report = json.dumps(compare(_load(path_a), _load(path_b), str(path_a), str(path_b)), indent=2) + "\n"
    if args.out is not None:
        write_text_atomic(args.out, report)
    print(report, end="")
    return 0
