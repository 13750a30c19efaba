"""Which module registers which sub-command, so the CLI imports only the command it runs.

Importing every command module pulled in scikit-learn, sympy, pint and textstat for `--help` alone
(seconds of start-up). A table level lists each command with its one-line help; the command being
run is registered by its modules, every other one by a placeholder that only names it in `--help`.
"""

from __future__ import annotations

import argparse
import importlib
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

# The words of the command line being parsed; None registers every command (tests, completion).
_requested: ContextVar[tuple[str, ...] | None] = ContextVar("scicustom_cli_words", default=None)


@dataclass(frozen=True)
class CommandEntry:
    help: str
    modules: tuple[str, ...]  # under scicustom.commands, each with `register(subparsers)`, in order


@contextmanager
def requested(words: Sequence[str]) -> Iterator[None]:
    token = _requested.set(tuple(words))
    try:
        yield
    finally:
        _requested.reset(token)


def add_commands(sub: argparse._SubParsersAction, table: Mapping[str, CommandEntry]) -> None:  # type: ignore[type-arg]
    words = _requested.get()
    chosen = None if words is None else next((w for w in words if w in table), None)
    for name, entry in table.items():
        if words is None or name == chosen:
            for module in entry.modules:
                importlib.import_module(f"{__package__}.{module}").register(sub)
        else:
            sub.add_parser(name, help=entry.help, add_help=False)
