"""Log records that carry the trace: one JSON object per line (SCICUSTOM_LOG_FORMAT=json, for log
collectors) or the usual text line, both with the trace and span id of the span active where
the record was made."""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Iterable
from datetime import UTC, datetime
from typing import Any, Literal

from opentelemetry import trace

from scicustom.telemetry.redaction import RedactingFormatter, register_secrets

# Attributes every LogRecord has; anything else on a record came from `extra=`.
_RECORD_ATTRIBUTES = frozenset(logging.LogRecord("", 0, "", 0, "", (), None).__dict__) | {"message", "asctime"}


def trace_ids() -> tuple[str, str] | None:
    """(trace id, span id) in hex of the active span, None outside a valid span."""
    context = trace.get_current_span().get_span_context()
    if not context.is_valid:
        return None
    return format(context.trace_id, "032x"), format(context.span_id, "016x")


class JsonLogFormatter(logging.Formatter):
    """time (UTC, ISO 8601, ms), level, logger, message, trace_id and span_id when a span is
    active, the `extra` fields, and `exception`/`stack` text when present. Values JSON cannot
    hold are written as their str()."""

    def format(self, record: logging.LogRecord) -> str:
        created = datetime.fromtimestamp(record.created, UTC)
        entry: dict[str, Any] = {
            "time": created.isoformat(timespec="milliseconds").replace("+00:00", "Z"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        ids = trace_ids()
        if ids is not None:
            entry["trace_id"], entry["span_id"] = ids
        for key, value in record.__dict__.items():
            if key not in _RECORD_ATTRIBUTES and key not in entry:
                entry[key] = value
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        elif record.exc_text:
            entry["exception"] = record.exc_text
        if record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        return json.dumps(entry, ensure_ascii=False, default=str)


class TextLogFormatter(logging.Formatter):
    """`time LEVEL logger: message`, then ` trace_id=… span_id=…` when a span is active."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")

    def formatMessage(self, record: logging.LogRecord) -> str:  # noqa: N802 (logging's name)
        line = super().formatMessage(record)
        ids = trace_ids()
        return line if ids is None else f"{line} trace_id={ids[0]} span_id={ids[1]}"


class _ConfiguredHandler(logging.StreamHandler):  # type: ignore[type-arg]
    """The handler `configure_logging` installs (and replaces on a second call)."""


def configure_logging(fmt: Literal["text", "json"], verbose: bool, secrets: Iterable[str | None] = ()) -> None:
    """One stderr handler on the root logger in `fmt`, level INFO when verbose else WARNING, that
    masks `secrets` and secret-shaped text in every line. Handlers installed by others (e.g.
    pytest's) are left alone."""
    register_secrets(secrets)
    formatters: dict[str, logging.Formatter] = {"text": TextLogFormatter(), "json": JsonLogFormatter()}
    if fmt not in formatters:
        raise ValueError(f"log format must be text or json, not {fmt!r}")
    root = logging.getLogger()
    for handler in [h for h in root.handlers if isinstance(h, _ConfiguredHandler)]:
        root.removeHandler(handler)
    handler = _ConfiguredHandler(sys.stderr)
    handler.setFormatter(RedactingFormatter(formatters[fmt]))
    root.addHandler(handler)
    root.setLevel(logging.INFO if verbose else logging.WARNING)
