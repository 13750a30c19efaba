"""`scicustom score <suite>`: each suite is a module `score_<suite>` here with `register(subparsers)`."""

from __future__ import annotations

import argparse
import importlib
import pkgutil

from scicustom import commands as commands_package


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser("score", help="score model output with the metric suites of the literature")
    suites = parser.add_subparsers(dest="suite", required=True, parser_class=type(parser))
    for info in sorted(pkgutil.iter_modules(commands_package.__path__), key=lambda m: m.name):
        if info.name.startswith("score_"):
            importlib.import_module(f"{commands_package.__name__}.{info.name}").register(suites)
