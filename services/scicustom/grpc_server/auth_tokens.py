"""Bearer tokens: making them, and the tokens file that maps their SHA-256 digests to tenants.

The file (mounted from a Kubernetes Secret, SCICUSTOM_AUTH_TOKENS_FILE) holds digests only, so
neither the Secret nor a backup of it holds a usable token. Two formats:

  # one entry per line: tenant, then the token's SHA-256 (hex); '#' starts a comment
  acme 3f2a...e1
  acme 9bc0...77      <- a second token of the same tenant, during a rotation

  {"acme": ["3f2a...e1", "9bc0...77"], "globex": ["51d4...0a"]}   (JSON, or the same as YAML)

`scicustom auth token --tenant T` prints a new token and its line. A digest may name one tenant
only; tenant ids follow app/tenancy.py (and "local" is reserved).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import yaml

from scicustom.app.tenancy import checked_tenant
from scicustom.core.errors import InvalidInput

TOKEN_PREFIX = "sct_"           # recognisable in a leaked-secret scan
MAX_TOKENS_FILE_BYTES = 1 << 20
_DIGEST = re.compile(r"(?:sha256:)?([0-9a-f]{64})")


def new_token() -> str:
    """256 random bits, URL-safe (it travels in a header)."""
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def token_line(tenant: str, token: str) -> str:
    """The tokens-file line that lets `token` in as `tenant`."""
    return f"{checked_tenant(tenant, '--tenant')} {token_digest(token)}"


@dataclass(frozen=True)
class TokenTable:
    """Digest -> tenant. Looking a token up compares it with every digest, in constant time each,
    so how long a refusal takes says nothing about how close a guess was."""

    tenants_by_digest: Mapping[str, str]

    def tenant_of(self, token: str) -> str | None:
        digest = token_digest(token).encode()
        found = None
        for known, tenant in self.tenants_by_digest.items():
            if hmac.compare_digest(known.encode(), digest):
                found = tenant
        return found

    @property
    def tenants(self) -> set[str]:
        return set(self.tenants_by_digest.values())


def _digest(value: object, where: str) -> str:
    match = _DIGEST.fullmatch(str(value).strip().lower()) if isinstance(value, str) else None
    if match is None:
        raise InvalidInput("auth_tokens_file", f"{where}: not a SHA-256 hex digest of a token "
                                               "(`scicustom auth token` prints one)")
    return match.group(1)


def _entries_from_mapping(data: Mapping[object, object]) -> list[tuple[str, str, str]]:
    entries = []
    for tenant, digests in data.items():
        values = digests if isinstance(digests, list) else [digests]
        for index, value in enumerate(values):
            where = f"tenant {str(tenant)[:60]!r} entry {index + 1}"
            entries.append((str(tenant), _digest(value, where), where))
    return entries


def _entries_from_lines(text: str) -> list[tuple[str, str, str]]:
    entries = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split()
        if len(parts) != 2:
            raise InvalidInput("auth_tokens_file", f"line {number}: expected `<tenant> <sha256 of the token>`")
        entries.append((parts[0], _digest(parts[1], f"line {number}"), f"line {number}"))
    return entries


def parse_tokens(text: str) -> TokenTable:
    """The table of a tokens file's text; InvalidInput names the line or entry at fault."""
    if len(text.encode("utf-8")) > MAX_TOKENS_FILE_BYTES:
        raise InvalidInput("auth_tokens_file", f"is larger than {MAX_TOKENS_FILE_BYTES} bytes")
    first = next((line.split("#", 1)[0].strip() for line in text.splitlines() if line.split("#", 1)[0].strip()), "")
    if first.startswith("{") or re.match(r"\S+:(\s|$)", first):
        try:
            data = yaml.safe_load(text)  # JSON is YAML; safe_load builds plain values only
        except yaml.YAMLError as exc:
            raise InvalidInput("auth_tokens_file", f"is not valid YAML/JSON: {str(exc).splitlines()[0]}") from None
        if not isinstance(data, dict):
            raise InvalidInput("auth_tokens_file", "a YAML/JSON tokens file maps tenant -> list of digests")
        entries = _entries_from_mapping(data)
    else:
        entries = _entries_from_lines(text)
    table: dict[str, str] = {}
    for tenant, digest, where in entries:
        checked_tenant(tenant, f"auth_tokens_file {where}")
        if table.get(digest, tenant) != tenant:
            raise InvalidInput("auth_tokens_file", f"{where}: the same token is listed for tenants "
                                                   f"{table[digest]!r} and {tenant!r}")
        table[digest] = tenant
    return TokenTable(table)


def read_tokens(path: Path) -> TokenTable:
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_TOKENS_FILE_BYTES + 1)
    except OSError as exc:
        raise InvalidInput("auth_tokens_file", f"cannot read {path}: {exc.strerror}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidInput("auth_tokens_file", f"{path} is not UTF-8 text") from None
    return parse_tokens(text)
