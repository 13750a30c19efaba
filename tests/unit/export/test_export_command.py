"""`scicustom export` as a command: exit 2 with one line for bad input, --force replaces only an
earlier export, a failed export leaves OUT as it was, and the same build exports to the same bytes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scicustom.app.export import exporter
from scicustom.cli import main
from scicustom.core.errors import InvalidInput
from tests.unit.export.build_dir_fixture import write_build

FORMATS = ["lm-eval", "inspect", "hf", "csv"]


@pytest.fixture
def build(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SCICUSTOM_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("SCICUSTOM_PROFILE", "local")
    return write_build(tmp_path / "build")


def _error(capsys: pytest.CaptureFixture[str]) -> str:
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("scicustom: error: ")
    return lines[0]


def _contents(directory: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(directory.iterdir())}


def test_an_export_is_a_marked_directory_and_reexports_to_the_same_bytes(
        build: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for fmt in FORMATS:
        out = tmp_path / f"out-{fmt}"
        assert main(["export", "--format", fmt, str(build), str(out)]) == 0
        assert f"exported 5 questions ({fmt})" in capsys.readouterr().out
        marker = json.loads((out / exporter.MARKER).read_text())
        assert marker["export_format"] == fmt and marker["questions"] == 5
        assert "README.md" in _contents(out)
        first = _contents(out)
        assert main(["export", "--format", fmt, str(build), str(out), "--force"]) == 0
        assert _contents(out) == first, fmt
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no staging left behind


def test_json_output(build: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--json", "export", "--format", "csv", str(build), str(tmp_path / "o")]) == 0
    result = json.loads(capsys.readouterr().out)
    assert result["questions"] == 5 and result["task_name"] == "scicustom_inorganic_chemistry_test"
    assert result["files"] == [exporter.MARKER, "README.md", "benchmark.csv"]


def test_existing_out_needs_force_and_force_replaces_only_an_export(
        build: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me")
    assert main(["export", "--format", "csv", str(build), str(mine)]) == 2
    assert "already exists; pass --force" in _error(capsys)
    assert main(["export", "--format", "csv", str(build), str(mine), "--force"]) == 2
    assert "was not written by `scicustom export`" in _error(capsys)
    (mine / exporter.MARKER).write_text("{not json")
    assert main(["export", "--format", "csv", str(build), str(mine), "--force"]) == 2
    _error(capsys)
    assert (mine / "notes.txt").read_text() == "keep me"
    a_file = tmp_path / "file.csv"
    a_file.write_text("x")
    assert main(["export", "--format", "csv", str(build), str(a_file), "--force"]) == 2
    assert "not a directory" in _error(capsys) and a_file.read_text() == "x"
    # an earlier export of another format is replaced
    out = tmp_path / "out"
    assert main(["export", "--format", "inspect", str(build), str(out)]) == 0
    assert main(["export", "--format", "csv", str(build), str(out), "--force"]) == 0
    assert sorted(_contents(out)) == [exporter.MARKER, "README.md", "benchmark.csv"]


def test_out_may_not_hold_the_build(build: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for out in (build, build.parent):
        assert main(["export", "--format", "csv", str(build), str(out), "--force"]) == 2
        assert "holds BUILD_DIR" in _error(capsys)
    assert (build / "benchmark.jsonl").is_file()


def test_a_build_dir_that_is_not_a_finished_build_is_named(
        build: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (build / "config.json").unlink()
    assert main(["export", "--format", "hf", str(build), str(tmp_path / "o")]) == 2
    assert _error(capsys).endswith(f"{build / 'config.json'}: missing: BUILD_DIR is not a finished build")
    assert main(["export", "--format", "csv", str(tmp_path / "nowhere"), str(tmp_path / "o")]) == 2
    assert "BUILD_DIR:" in _error(capsys)
    assert main(["export", "--format", "xml", str(build), str(tmp_path / "o")]) == 2
    assert "invalid choice" in _error(capsys)
    assert not (tmp_path / "o").exists()


def test_a_failed_export_leaves_out_as_it_was(build: Path, tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    out = tmp_path / "out"
    assert main(["export", "--format", "csv", str(build), str(out)]) == 0
    before = _contents(out)

    def broken(*_: object) -> dict[str, str | bytes]:
        return {"README.md": "partial", "sub/dir.txt": "no such directory: the write fails half-way"}

    monkeypatch.setitem(exporter.EXPORT_FORMATS, "csv", broken)
    with pytest.raises(InvalidInput, match="OUT: cannot write"):
        exporter.export_build(build, out, "csv", force=True)
    assert _contents(out) == before
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # the staging directory is gone
