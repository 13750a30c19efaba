"""Secrets out of every text that leaves the process: log lines and dead-letter records.

Exception text is not ours to control: an S3 or HTTP client error can echo a URL with credentials,
an LLM provider error a key. The process's own secret values (from its settings) are replaced
wherever they occur, and the shapes secrets take (URL userinfo, bearer tokens, `key=value` pairs,
provider keys) are masked even when the value is not one we know.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable

MASK = "***"
_SHAPES = (
    (re.compile(r"(\b[a-z][a-z0-9+.-]*://)[^/\s:@]+:[^/\s@]+@", re.IGNORECASE), rf"\1{MASK}@"),
    (re.compile(r"(\bbearer\s+)[A-Za-z0-9._~+/=-]+", re.IGNORECASE), rf"\1{MASK}"),
    (re.compile(r"\b(sk|pk|rk)-[A-Za-z0-9_-]{8,}"), rf"\1-{MASK}"),
    (re.compile(r"\bsct_[A-Za-z0-9_-]{16,}"), f"sct_{MASK}"),  # the platform's own bearer tokens
    (re.compile(r"(\b(?:api[_-]?key|secret(?:[_-]?key)?|password|passwd|token|access[_-]?key)\b[\"']?\s*[:=]\s*[\"']?)"
                r"[^\s\"',;&]+", re.IGNORECASE), rf"\1{MASK}"),
)
_known: set[str] = set()
_SHORTEST_SECRET = 4  # shorter values would mask ordinary words


def register_secrets(values: Iterable[str | None]) -> None:
    """The process's own secret values, masked wherever they occur from now on."""
    _known.update(v for v in values if v and len(v) >= _SHORTEST_SECRET)


def redact(text: str) -> str:
    for value in sorted(_known, key=len, reverse=True):  # a secret containing another goes first
        text = text.replace(value, MASK)
    for pattern, replacement in _SHAPES:
        text = pattern.sub(replacement, text)
    return text


class RedactingFormatter(logging.Formatter):
    """Formats with `inner`, then masks secrets in the whole line (message, exception, extras)."""

    def __init__(self, inner: logging.Formatter) -> None:
        super().__init__()
        self.inner = inner

    def format(self, record: logging.LogRecord) -> str:
        return redact(self.inner.format(record))
