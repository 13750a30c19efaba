"""`scicustom ...`: the command-line entry point. Each sub-command lives in `scicustom.commands`.

Bad input ends with exit code 2 and one line on stderr naming the problem.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys
from collections.abc import Sequence

from scicustom import commands as commands_package
from scicustom.bootstrap import Context
from scicustom.core.errors import InvalidInput, PreconditionFailed
from scicustom.telemetry.log_format import configure_logging

EXIT_BAD_INPUT = 2


class UsageError(Exception):
    """Raised by argparse instead of exiting, so every bad input takes one path."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="scicustom", description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--profile", choices=["local", "cluster"], default=None,
                        help="override SCICUSTOM_PROFILE")
    parser.add_argument("-v", "--verbose", action="store_true", help="log at INFO level")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    # Every module of scicustom.commands with a `register` adds its sub-commands.
    for info in sorted(pkgutil.iter_modules(commands_package.__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{commands_package.__name__}.{info.name}")
        if hasattr(module, "register"):
            module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if args.profile:
            os.environ["SCICUSTOM_PROFILE"] = args.profile
        # The one read of the settings; every command gets its adapters from this context.
        ctx = Context.from_environment()
        # One line per record, with the trace id when a span is active (JSON in pods).
        configure_logging(ctx.settings.log_format, args.verbose)
        return int(args.handler(args, ctx) or 0)
    except UsageError as exc:
        print(f"scicustom: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except InvalidInput as exc:
        print(f"scicustom: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except PreconditionFailed as exc:
        print(f"scicustom: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT


def run() -> None:
    sys.exit(main())
