"""scripts/audit_lock.py: OSV range matching, both advisory sources, and its exit codes."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st
from packaging.version import Version

from scripts.audit_lock import (
    EXIT_BAD_INPUT,
    EXIT_UNAUDITED,
    EXIT_VULNERABLE,
    AuditInputError,
    Pin,
    audit_offline,
    main,
    read_pins,
    record_affects,
)


def _record(name: str, events: list[dict[str, str]], versions: tuple[str, ...] = (), **extra: object) -> dict:
    return {"id": "PYSEC-0000-1", "aliases": ["CVE-0000-1"], **extra,
            "affected": [{"package": {"name": name, "ecosystem": "PyPI"},
                          "ranges": [{"type": "ECOSYSTEM", "events": events}], "versions": list(versions)}]}


def test_pins_are_read_with_canonical_names_and_a_loose_requirement_names_its_line() -> None:
    assert read_pins("# comment\nPyYAML==6.0.3\n\ntorch==2.13.0+cpu  # local build\n", "lock") == [
        Pin("pyyaml", "6.0.3"), Pin("torch", "2.13.0+cpu")]
    with pytest.raises(AuditInputError, match=r"lock:2: not an exact pin.*numpy>=2"):
        read_pins("requests==2.32.0\nnumpy>=2\n", "lock")


@pytest.mark.parametrize(("version", "affected"), [
    ("1.9", False), ("2.0", True), ("2.4.1", True), ("2.5", False), ("3.0", True), ("3.1", True), ("3.2", False)])
def test_osv_ranges_open_at_introduced_and_close_at_fixed_or_after_last_affected(version: str, affected: bool) -> None:
    events = [{"introduced": "2.0"}, {"fixed": "2.5"}, {"introduced": "3.0"}, {"last_affected": "3.1"}]
    record = _record("Pkg_A", events)
    assert record_affects(record, Pin("pkg-a", version)) is affected


def test_explicit_versions_other_ecosystems_and_withdrawn_records() -> None:
    listed = _record("pkg", [], versions=("1.0rc1",))
    assert record_affects(listed, Pin("pkg", "1.0rc1"))
    assert record_affects(listed, Pin("pkg", "1.0rc1+cpu"))  # a local build of a listed release
    assert not record_affects(listed, Pin("pkg", "1.0"))
    npm = _record("pkg", [{"introduced": "0"}])
    npm["affected"][0]["package"]["ecosystem"] = "npm"
    assert not record_affects(npm, Pin("pkg", "1.0"))
    assert not record_affects(_record("pkg", [{"introduced": "0"}], withdrawn="2024-01-01T00:00:00Z"), Pin("pkg", "1"))


@given(st.tuples(*[st.integers(0, 30)] * 3).map(lambda t: sorted(t)))
def test_a_single_interval_affects_exactly_the_versions_inside_it(bounds: list[int]) -> None:
    introduced, version, fixed = (Version(f"1.{n}") for n in bounds)
    record = _record("pkg", [{"introduced": str(introduced)}, {"fixed": str(fixed)}])
    assert record_affects(record, Pin("pkg", str(version))) is (introduced <= version < fixed)


def test_offline_audit_lists_only_affected_pins_with_their_fixes(tmp_path: Path) -> None:
    (tmp_path / "vulns" / "pkg").mkdir(parents=True)
    (tmp_path / "vulns" / "pkg" / "PYSEC-0000-1.yaml").write_text(yaml.safe_dump(
        _record("pkg", [{"introduced": "0"}, {"fixed": "1.5"}])))
    (tmp_path / "lock").write_text("pkg==1.4\nother==1.0\n")
    result = audit_offline(read_pins("pkg==1.4\nother==1.0\n", "lock"),
                           [_record("pkg", [{"introduced": "0"}, {"fixed": "1.5"}])])
    assert [(f.pin, f.advisory, f.fixed_in) for f in result.findings] == [(Pin("pkg", "1.4"), "PYSEC-0000-1", ("1.5",))]
    assert main(["--lock", str(tmp_path / "lock"), "--advisories", str(tmp_path)]) == EXIT_VULNERABLE
    (tmp_path / "lock").write_text("pkg==1.5\n")
    assert main(["--lock", str(tmp_path / "lock"), "--advisories", str(tmp_path)]) == 0


def test_bad_input_is_exit_2_with_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "lock").write_text("pkg\n")
    assert main(["--lock", str(tmp_path / "lock"), "--advisories", str(tmp_path)]) == EXIT_BAD_INPUT
    assert capsys.readouterr().err.strip().count("\n") == 0
    (tmp_path / "lock").write_text("pkg==1\n")
    assert main(["--lock", str(tmp_path / "lock"), "--advisories", str(tmp_path)]) == EXIT_BAD_INPUT  # no records
    (tmp_path / "broken.yaml").write_text("affected: [\n")
    assert main(["--lock", str(tmp_path / "lock"), "--advisories", str(tmp_path)]) == EXIT_BAD_INPUT
    assert "broken.yaml" in capsys.readouterr().err


@pytest.fixture
def fake_pypi() -> Iterator[str]:
    """A loopback stand-in for PyPI's per-release JSON API: two releases known, everything else 404."""
    releases = {"/pypi/pkg/1.4/json": [{"id": "PYSEC-0000-1", "aliases": ["CVE-0000-1"], "fixed_in": ["1.5"]},
                                       {"id": "PYSEC-0000-2", "fixed_in": ["1.6"], "withdrawn": "2024-01-01"}],
                "/pypi/pkg/1.5/json": []}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path not in releases:
                self.send_error(404)
                return
            body = json.dumps({"info": {}, "vulnerabilities": releases[self.path]}).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/pypi"
    server.shutdown()
    server.server_close()


def test_pypi_source_reports_vulnerable_clean_and_unanswered_releases(
        fake_pypi: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lock = tmp_path / "lock"
    lock.write_text("pkg==1.4\n")
    assert main(["--lock", str(lock), "--pypi", fake_pypi]) == EXIT_VULNERABLE
    out = capsys.readouterr().out
    assert "VULNERABLE pkg==1.4: PYSEC-0000-1 (CVE-0000-1); fixed in 1.5" in out
    assert "PYSEC-0000-2" not in out  # withdrawn
    lock.write_text("pkg==1.5+cpu\n")  # asked as its public release
    assert main(["--lock", str(lock), "--pypi", fake_pypi]) == 0
    # A release the server does not answer for is unaudited, never clean.
    lock.write_text("pkg==1.5\nunknown==9\n")
    assert main(["--lock", str(lock), "--pypi", fake_pypi]) == EXIT_UNAUDITED
    assert "1 audited, 1 unaudited" in capsys.readouterr().out
    assert main(["--lock", str(lock), "--pypi", fake_pypi, "--allow-unaudited"]) == 0


def test_an_unreachable_server_leaves_every_pin_unaudited_after_one_try(tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    lock = tmp_path / "lock"
    lock.write_text("pkg==1.5\nother==2\n")
    with socket.socket() as unused:  # a loopback port nobody listens on
        unused.bind(("127.0.0.1", 0))
        port = unused.getsockname()[1]
    assert main(["--lock", str(lock), "--pypi", f"http://127.0.0.1:{port}/pypi"]) == EXIT_UNAUDITED
    assert "UNAUDITED 2 pins: URLError (server unreachable)" in capsys.readouterr().out
