"""Bearer tokens: making them, and the tokens file that maps their SHA-256 digests to tenants.

The file (mounted from a Kubernetes Secret, SCICUSTOM_AUTH_TOKENS_FILE) holds digests only, so
neither the Secret nor a backup of it holds a usable token. Two formats:

  # one entry per line: tenant, the token's SHA-256 (hex), then optional role= and expires=
  acme 3f2a...e1
  acme 9bc0...77 expires=2027-01-31T00:00:00Z     <- a second token of acme, valid until then
  ops  51d4...0a role=admin                       <- may also change shared state (authorisation.py)

  {"acme": ["3f2a...e1", {"digest": "9bc0...77", "expires_at": "2027-01-31T00:00:00Z"}],
   "ops": [{"digest": "51d4...0a", "role": "admin"}]}      (JSON, or the same as YAML)

A token without a role is a tenant's (files written before roles keep working); without an expiry
it is valid until its line goes. `scicustom auth token --tenant T [--admin] [--expires-in 30d]`
prints a new token and its line. A digest may appear once; tenant ids follow app/tenancy.py
("local" is reserved).
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from pathlib import Path

import yaml

from scicustom.app.tenancy import checked_tenant
from scicustom.core.errors import InvalidInput

TOKEN_PREFIX = "sct_"           # recognisable in a leaked-secret scan
MAX_TOKENS_FILE_BYTES = 1 << 20
_DIGEST = re.compile(r"(?:sha256:)?([0-9a-f]{64})")
_LIFETIME = re.compile(r"([1-9][0-9]{0,5})([smhd])")
_LIFETIME_UNITS = {"s": "seconds", "m": "minutes", "h": "hours", "d": "days"}
_FIELD = "auth_tokens_file"


class Role(StrEnum):
    TENANT = "tenant"   # its own builds and papers, the stateless services
    ADMIN = "admin"     # also what changes state every tenant shares (grpc_server/authorisation.py)


@dataclass(frozen=True)
class TokenRecord:
    tenant: str
    role: Role = Role.TENANT
    expires_at: datetime | None = None  # UTC; None: until the line is removed

    def expired(self, now: datetime) -> bool:
        return self.expires_at is not None and now >= self.expires_at


def new_token() -> str:
    """256 random bits, URL-safe (it travels in a header)."""
    return TOKEN_PREFIX + secrets.token_urlsafe(32)


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def utc_text(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def token_line(tenant: str, token: str, role: Role = Role.TENANT, expires_at: datetime | None = None) -> str:
    """The tokens-file line that lets `token` in as `tenant` (with `role`, until `expires_at`)."""
    line = f"{checked_tenant(tenant, '--tenant')} {token_digest(token)}"
    if role is not Role.TENANT:
        line += f" role={role.value}"
    if expires_at is not None:
        line += f" expires={utc_text(expires_at)}"
    return line


def lifetime(text: str, field: str = "--expires-in") -> timedelta:
    """'30d', '12h', '90m' or '3600s' as a duration."""
    match = _LIFETIME.fullmatch(text.strip())
    if match is None:
        raise InvalidInput(field, f"{text[:40]!r} is not a lifetime: a whole number and s, m, h or d (e.g. 30d)")
    return timedelta(**{_LIFETIME_UNITS[match.group(2)]: int(match.group(1))})


@dataclass(frozen=True)
class TokenTable:
    """Digest -> token record. Looking a token up compares it with every digest, in constant time
    each, so how long a refusal takes says nothing about how close a guess was."""

    records_by_digest: Mapping[str, TokenRecord]

    def record_of(self, token: str) -> TokenRecord | None:
        digest = token_digest(token).encode()
        found = None
        for known, record in self.records_by_digest.items():
            if hmac.compare_digest(known.encode(), digest):
                found = record
        return found

    def tenant_of(self, token: str) -> str | None:
        record = self.record_of(token)
        return None if record is None else record.tenant

    @property
    def tenants(self) -> set[str]:
        return {record.tenant for record in self.records_by_digest.values()}

    def count(self, role: Role) -> int:
        return sum(1 for record in self.records_by_digest.values() if record.role is role)

    def expired(self, now: datetime) -> int:
        return sum(1 for record in self.records_by_digest.values() if record.expired(now))


def _digest(value: object, where: str) -> str:
    match = _DIGEST.fullmatch(value.strip().lower()) if isinstance(value, str) else None
    if match is None:
        raise InvalidInput(_FIELD, f"{where}: not a SHA-256 hex digest of a token "
                                   "(`scicustom auth token` prints one)")
    return match.group(1)


def _role(value: object, where: str) -> Role:
    try:
        return Role(str(value).strip().lower())
    except ValueError:
        raise InvalidInput(_FIELD, f"{where}: role {str(value)[:40]!r} is not one of "
                                   f"{', '.join(r.value for r in Role)}") from None


def _expiry(value: object, where: str) -> datetime:
    # YAML reads an unquoted timestamp as a datetime already (naive when it has no zone).
    try:
        moment = value if isinstance(value, datetime) else datetime.fromisoformat(str(value).strip())
    except ValueError:
        raise InvalidInput(_FIELD, f"{where}: expiry {str(value)[:40]!r} is not an ISO 8601 time") from None
    if moment.tzinfo is None:
        raise InvalidInput(_FIELD, f"{where}: expiry {str(value)[:40]!r} has no time zone (end it with Z)")
    return moment.astimezone(UTC)


Entry = tuple[str, str, Role, datetime | None, str]  # tenant, digest, role, expiry, where


def _entry_from_mapping_value(tenant: str, value: object, where: str) -> Entry:
    if not isinstance(value, dict):
        return tenant, _digest(value, where), Role.TENANT, None, where
    unknown = sorted(str(k) for k in value if k not in ("digest", "role", "expires_at"))
    if unknown:
        raise InvalidInput(_FIELD, f"{where}: unknown key {unknown[0][:40]!r} (digest, role, expires_at)")
    expires = value.get("expires_at")
    return (tenant, _digest(value.get("digest"), where), _role(value.get("role", Role.TENANT.value), where),
            None if expires is None else _expiry(expires, where), where)


def _entries_from_mapping(data: Mapping[object, object]) -> list[Entry]:
    entries = []
    for tenant, values in data.items():
        for index, value in enumerate(values if isinstance(values, list) else [values]):
            where = f"tenant {str(tenant)[:60]!r} entry {index + 1}"
            entries.append(_entry_from_mapping_value(str(tenant), value, where))
    return entries


def _entry_from_line(parts: list[str], where: str) -> Entry:
    role, expires = Role.TENANT, None
    for option in parts[2:]:
        name, equals, value = option.partition("=")
        if not equals or name not in ("role", "expires"):
            raise InvalidInput(_FIELD, f"{where}: {option[:40]!r} is not role=<role> or expires=<time>")
        if name == "role":
            role = _role(value, where)
        else:
            expires = _expiry(value, where)
    return parts[0], _digest(parts[1], where), role, expires, where


def _entries_from_lines(text: str) -> list[Entry]:
    entries = []
    for number, raw in enumerate(text.splitlines(), start=1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        parts = line.split()
        if not 2 <= len(parts) <= 4:
            raise InvalidInput(_FIELD, f"line {number}: expected `<tenant> <sha256 of the token> "
                                       "[role=admin] [expires=<time>]`")
        entries.append(_entry_from_line(parts, f"line {number}"))
    return entries


def parse_tokens(text: str) -> TokenTable:
    """The table of a tokens file's text; InvalidInput names the line or entry at fault."""
    if len(text.encode("utf-8")) > MAX_TOKENS_FILE_BYTES:
        raise InvalidInput(_FIELD, f"is larger than {MAX_TOKENS_FILE_BYTES} bytes")
    first = next((line.split("#", 1)[0].strip() for line in text.splitlines() if line.split("#", 1)[0].strip()), "")
    if first.startswith("{") or re.match(r"\S+:(\s|$)", first):
        try:
            data = yaml.safe_load(text)  # JSON is YAML; safe_load builds plain values only
        except yaml.YAMLError as exc:
            raise InvalidInput(_FIELD, f"is not valid YAML/JSON: {str(exc).splitlines()[0]}") from None
        if not isinstance(data, dict):
            raise InvalidInput(_FIELD, "a YAML/JSON tokens file maps tenant -> list of digests")
        entries = _entries_from_mapping(data)
    else:
        entries = _entries_from_lines(text)
    table: dict[str, TokenRecord] = {}
    for tenant, digest, role, expires, where in entries:
        checked_tenant(tenant, f"{_FIELD} {where}")
        known = table.get(digest)
        if known is not None and known.tenant != tenant:
            raise InvalidInput(_FIELD, f"{where}: the same token is listed for tenants {known.tenant!r} and {tenant!r}")
        if known is not None:  # one token, one role and one expiry: which one was meant is not ours to guess
            raise InvalidInput(_FIELD, f"{where}: the same token is listed twice for tenant {tenant!r}")
        table[digest] = TokenRecord(tenant, role, expires)
    return TokenTable(table)


def read_tokens(path: Path) -> TokenTable:
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_TOKENS_FILE_BYTES + 1)
    except OSError as exc:
        raise InvalidInput(_FIELD, f"cannot read {path}: {exc.strerror}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidInput(_FIELD, f"{path} is not UTF-8 text") from None
    return parse_tokens(text)
