"""`scicustom score <suite>`: each suite is a module `score_<suite>` here with `register(subparsers)`."""

from __future__ import annotations

import argparse

from scicustom.commands.command_table import CommandEntry, add_commands

SUITES: dict[str, CommandEntry] = {
    "alchemy": CommandEntry("AlchemyBench: recipe extraction, prediction, LLM judge", ("score_alchemy",)),
    "m2m": CommandEntry("Matter to Mechanism hypothesis metrics (rcf, hpa, msi, sns, ip, pdq, cbs)", ("score_m2m",)),
    "sciif": CommandEntry("SciIF: scientific instruction-following audit", ("score_sciif",)),
}


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser("score", help="score model output with the metric suites of the literature")
    suites = parser.add_subparsers(dest="suite", required=True, parser_class=type(parser), metavar="suite")
    add_commands(suites, SUITES)
