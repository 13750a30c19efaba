"""The CLI's command table: every command listed once, registered by the modules the table names,
and `--help`/`--version` answered without importing any command's dependencies."""

from __future__ import annotations

import argparse
import pkgutil
import re
import subprocess
import sys

import pytest

from scicustom import __version__
from scicustom import commands as commands_package
from scicustom.cli import COMMANDS, build_parser, main
from scicustom.commands.command_table import CommandEntry
from scicustom.commands.score import SUITES


def _listed(parser: argparse.ArgumentParser) -> dict[str, str]:
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return {action.dest: action.help or "" for action in sub._choices_actions}


def _subparser(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser:
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return sub.choices[name]


def _check_table(parser: argparse.ArgumentParser, table: dict[str, CommandEntry]) -> None:
    listed = _listed(parser)
    assert list(listed) == list(table)
    for name, entry in table.items():
        assert listed[name] == entry.help, f"{name}: the table's help differs from what its module registers"


def test_full_registration_matches_the_tables() -> None:
    parser = build_parser()  # outside `requested`: every module registers
    _check_table(parser, COMMANDS)
    _check_table(_subparser(parser, "score"), SUITES)


def test_every_command_module_is_in_exactly_one_table() -> None:
    named = [m for table in (COMMANDS, SUITES) for entry in table.values() for m in entry.modules]
    assert len(named) == len(set(named))
    registering = {info.name for info in pkgutil.iter_modules(commands_package.__path__)
                   if hasattr(__import__(f"scicustom.commands.{info.name}", fromlist=["x"]), "register")}
    assert registering == set(named)


def test_help_lists_each_command_once(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["--help"])
    assert stop.value.code == 0
    listed = re.findall(r"^    (\S+)", capsys.readouterr().out, flags=re.MULTILINE)
    assert listed == list(COMMANDS)


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--version"])
    assert capsys.readouterr().out.strip() == f"scicustom {__version__}"


def test_unknown_command_is_one_line_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--profile", "local", "bogus"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("scicustom: error:") and "bogus" in err[0]


@pytest.mark.parametrize("argv", [["--help"], ["--profile", "cluster", "score", "m2m", "--help"]])
def test_start_up_imports_only_what_the_command_needs(argv: list[str]) -> None:
    probe = ("import sys\nfrom scicustom.cli import main\n"
             f"try:\n    main({argv!r})\nexcept SystemExit:\n    pass\n"
             "heavy = [m for m in ('sklearn', 'sympy', 'pint', 'textstat', 'torch', 'scicustom.bootstrap',"
             " 'scicustom.commands.build', 'scicustom.commands.score_sciif') if m in sys.modules]\n"
             "print('HEAVY', heavy, file=sys.stderr)\n")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert "HEAVY []" in done.stderr
