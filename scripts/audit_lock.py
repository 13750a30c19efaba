"""Audit of the pinned dependency tree (requirements.lock) against known vulnerabilities: `make audit`.

Two sources of advisories, both in the OSV schema of the Python Packaging Advisory Database:
  --advisories DIR  offline: a directory of OSV records (.yaml/.json), e.g. a checkout of
                    github.com/pypa/advisory-database; every PyPI record in it is matched against
                    every pin by its ranges and explicit versions
  --pypi URL        PyPI's JSON API per pinned release (`URL/<name>/<version>/json`, key
                    `vulnerabilities`): the data pip-audit's default service reads
A pin the source cannot answer for (no record of the release, an unreachable server) is counted as
unaudited, never as clean: a mirror that hides the per-release API would otherwise pass everything.

Exit: 0 no known vulnerability among the audited pins; 1 vulnerable pins (listed on stdout);
2 bad input (one line on stderr); 4 pins left unaudited (unless --allow-unaudited).
Run: python scripts/audit_lock.py [--lock requirements.lock] (--advisories DIR | --pypi URL)
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import urllib.error
import urllib.request
from collections import Counter
from collections.abc import Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from packaging.utils import canonicalize_name
from packaging.version import InvalidVersion, Version

PYPI_JSON = "https://pypi.org/pypi"
EXIT_VULNERABLE, EXIT_BAD_INPUT, EXIT_UNAUDITED = 1, 2, 4
_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;#]+)")


class AuditInputError(ValueError):
    """Input the audit cannot read; the message names the file and line or record."""


@dataclass(frozen=True)
class Pin:
    name: str  # canonical (PEP 503)
    version: str


@dataclass(frozen=True)
class Finding:
    pin: Pin
    advisory: str
    aliases: tuple[str, ...]
    fixed_in: tuple[str, ...]


@dataclass
class AuditResult:
    findings: list[Finding] = field(default_factory=list)
    unaudited: dict[Pin, str] = field(default_factory=dict)  # pin -> why
    audited: int = 0


def read_pins(text: str, source: str) -> list[Pin]:
    """Exact `name==version` pins; anything else but comments and blank lines is refused, so that a
    loose requirement cannot slip through the audit unchecked."""
    pins = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        match = _PIN.match(line)
        if match is None:
            raise AuditInputError(f"{source}:{number}: not an exact pin 'name==version': {line[:80]!r}")
        pins.append(Pin(canonicalize_name(match.group(1)), match.group(2)))
    return pins


def _version(text: str) -> Version | None:
    try:
        return Version(text)
    except InvalidVersion:
        return None


def _in_range(version: Version, events: list[dict[str, str]]) -> bool:
    """OSV ECOSYSTEM range semantics: walk the events in version order; `introduced` opens an
    affected interval, `fixed` closes it at that version, `last_affected` just after it."""
    keyed = []
    for event in events:
        if not isinstance(event, dict) or len(event) != 1:
            continue
        ((kind, at),) = event.items()
        bound = Version("0") if kind == "introduced" and at == "0" else _version(str(at))
        if kind in ("introduced", "fixed", "last_affected") and bound is not None:
            keyed.append((bound, kind))
    affected = False
    for bound, kind in sorted(keyed, key=lambda pair: pair[0]):
        if kind == "introduced" and version >= bound:
            affected = True
        elif (kind == "fixed" and version >= bound) or (kind == "last_affected" and version > bound):
            affected = False
    return affected


def _entries_of(record: dict[str, Any], pin: Pin) -> Iterator[dict[str, Any]]:
    """The record's `affected` entries about this PyPI package."""
    for affected in record.get("affected") or []:
        package = affected.get("package") or {}
        if package.get("ecosystem") == "PyPI" and canonicalize_name(str(package.get("name", ""))) == pin.name:
            yield affected


def record_affects(record: dict[str, Any], pin: Pin) -> bool:
    """Whether one OSV record names this release of this package as affected."""
    if record.get("withdrawn"):
        return False
    version = _version(pin.version)
    for affected in _entries_of(record, pin):
        listed = {str(v) for v in affected.get("versions") or []}
        if pin.version in listed or (version is not None and version.public in listed):
            return True
        if version is None:
            continue
        for ranges in affected.get("ranges") or []:
            if ranges.get("type") == "ECOSYSTEM" and _in_range(version, list(ranges.get("events") or [])):
                return True
    return False


def _fixed_versions(record: dict[str, Any], pin: Pin) -> tuple[str, ...]:
    return tuple(str(event["fixed"]) for affected in _entries_of(record, pin) for ranges in affected.get("ranges") or []
                 if ranges.get("type") == "ECOSYSTEM"  # GIT ranges name commits, not releases
                 for event in ranges.get("events") or [] if "fixed" in event)


def osv_records(directory: Path) -> Iterator[dict[str, Any]]:
    paths = sorted(p for p in directory.rglob("*") if p.suffix in (".yaml", ".yml", ".json") and p.is_file())
    if not paths:
        raise AuditInputError(f"--advisories {directory}: no OSV records (.yaml/.json) under it")
    for path in paths:
        try:
            text = path.read_text(encoding="utf-8")
            record = json.loads(text) if path.suffix == ".json" else yaml.safe_load(text)
        except (OSError, UnicodeDecodeError, ValueError, yaml.YAMLError) as exc:
            raise AuditInputError(f"{path}: not an OSV record ({type(exc).__name__})") from exc
        if isinstance(record, dict) and "affected" in record:
            yield record


def audit_offline(pins: list[Pin], records: Iterable[dict[str, Any]]) -> AuditResult:
    by_name: dict[str, list[Pin]] = {}
    for pin in pins:
        by_name.setdefault(pin.name, []).append(pin)
    result = AuditResult(audited=len(pins))
    for record in records:
        names = {canonicalize_name(str((a.get("package") or {}).get("name", ""))) for a in record["affected"] or []}
        for name in names & by_name.keys():
            for pin in by_name[name]:
                if record_affects(record, pin):
                    result.findings.append(Finding(pin, str(record.get("id", "?")),
                                                   tuple(record.get("aliases") or ()), _fixed_versions(record, pin)))
    return result


def _pypi_answer(pin: Pin, base_url: str, timeout_s: float) -> list[dict[str, Any]] | str:
    """The release's vulnerability records, or why there are none to read."""
    version = _version(pin.version)
    # A local build (torch 2.13.0+cpu) is the public release's code: PyPI knows only the public version.
    release = version.public if version is not None else pin.version
    url = f"{base_url.rstrip('/')}/{pin.name}/{release}/json"
    try:
        with urllib.request.urlopen(url, timeout=timeout_s) as response:
            body = json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return f"HTTP {exc.code}"
    except (urllib.error.URLError, TimeoutError, ValueError) as exc:
        return type(exc).__name__
    vulnerabilities = body.get("vulnerabilities") if isinstance(body, dict) else None
    if not isinstance(vulnerabilities, list):
        return "no 'vulnerabilities' list in the answer"
    return [v for v in vulnerabilities if isinstance(v, dict)]


def audit_pypi(pins: list[Pin], base_url: str, timeout_s: float = 10.0) -> AuditResult:
    result = AuditResult()
    if not pins:
        return result
    first = _pypi_answer(pins[0], base_url, timeout_s)
    if isinstance(first, str) and not first.startswith("HTTP"):
        # No server answers at all: one timeout, not one per pin.
        result.unaudited = {pin: f"{first} (server unreachable)" for pin in pins}
        return result
    with ThreadPoolExecutor(max_workers=8) as pool:  # one round trip per pin; 244 pins in series take minutes
        answers = [first, *pool.map(lambda pin: _pypi_answer(pin, base_url, timeout_s), pins[1:])]
    for pin, answer in zip(pins, answers, strict=True):
        if isinstance(answer, str):
            result.unaudited[pin] = answer
            continue
        result.audited += 1
        for vuln in answer:
            if not vuln.get("withdrawn"):
                result.findings.append(Finding(pin, str(vuln.get("id", "?")), tuple(vuln.get("aliases") or ()),
                                               tuple(str(v) for v in vuln.get("fixed_in") or ())))
    return result


def report(result: AuditResult, total: int, source: str) -> str:
    lines = [f"audit of {total} pins against {source}: {result.audited} audited, "
             f"{len(result.unaudited)} unaudited, {len(result.findings)} known vulnerabilities"]
    for finding in sorted(result.findings, key=lambda f: (f.pin.name, f.advisory)):
        aliases = f" ({', '.join(finding.aliases)})" if finding.aliases else ""
        fixed = ", ".join(finding.fixed_in) or "no fix published"
        lines.append(f"  VULNERABLE {finding.pin.name}=={finding.pin.version}: {finding.advisory}{aliases}; "
                     f"fixed in {fixed}")
    for why, count in sorted(Counter(result.unaudited.values()).items()):
        lines.append(f"  UNAUDITED {count} pins: {why}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--lock", type=Path, default=Path("requirements.lock"))
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--advisories", type=Path, help="directory of OSV records (offline)")
    source.add_argument("--pypi", metavar="URL", help=f"PyPI JSON API base, e.g. {PYPI_JSON}")
    parser.add_argument("--allow-unaudited", action="store_true",
                        help="exit 0 rather than 4 when the source could not answer for some pins")
    args = parser.parse_args(argv)
    try:
        pins = read_pins(args.lock.read_text(encoding="utf-8"), str(args.lock))
        if args.advisories is not None:
            if not args.advisories.is_dir():
                raise AuditInputError(f"--advisories {args.advisories}: not a directory")
            result, source_name = audit_offline(pins, osv_records(args.advisories)), str(args.advisories)
        else:
            result, source_name = audit_pypi(pins, args.pypi), args.pypi
    except (OSError, AuditInputError) as exc:
        print(f"audit: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    print(report(result, len(pins), source_name))
    if result.findings:
        return EXIT_VULNERABLE
    if result.unaudited and not args.allow_unaudited:
        return EXIT_UNAUDITED
    return 0


if __name__ == "__main__":
    sys.exit(main())
