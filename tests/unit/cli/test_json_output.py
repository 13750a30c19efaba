"""The global `--json`: one JSON document on stdout, the same for a command's own `--json`."""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from scicustom.cli import main
from scicustom.commands.command_output import emit


@dataclass
class _Report:
    items: int
    where: Path


def test_emit_prints_text_or_json(capsys: pytest.CaptureFixture[str]) -> None:
    report = _Report(3, Path("/tmp/x"))
    emit(argparse.Namespace(json=False), report, lambda: f"{report.items} items")
    emit(argparse.Namespace(json=True), report, lambda: "never called")
    text, doc = capsys.readouterr().out.splitlines()
    assert text == "3 items"
    assert json.loads(doc) == {"items": 3, "where": "/tmp/x"}


@pytest.mark.parametrize("argv", [["--json", "papers", "list"], ["papers", "list", "--json"]])
def test_global_and_command_json_flags_agree(argv: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("SCICUSTOM_HOME", str(tmp_path))
    monkeypatch.setenv("SCICUSTOM_PROFILE", "local")
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out) == {"papers": []}


def test_json_status_of_a_dev_dir_that_never_started(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setenv("SCICUSTOM_HOME", str(tmp_path))
    assert main(["--json", "dev", "status", "--dir", str(tmp_path / "dev")]) == 1
    assert json.loads(capsys.readouterr().out) == {"processes": {}}
