"""Log lines carry the trace: JSON objects (one a line) and text lines with trace and span ids."""

from __future__ import annotations

import json
import logging
import sys
from datetime import datetime
from pathlib import Path

import pytest

from scicustom.telemetry.log_format import JsonLogFormatter, TextLogFormatter, configure_logging, trace_ids
from scicustom.telemetry.redaction import RedactingFormatter


def _record(message: str = "built %s", args: tuple = ("b1",), **extra) -> logging.LogRecord:
    record = logging.LogRecord("scicustom.builds", logging.WARNING, __file__, 12, message, args, None)
    record.__dict__.update(extra)
    return record


def test_json_line_has_the_active_trace_and_the_extra_fields(tracing):
    with tracing.provider.get_tracer("test").start_as_current_span("CreateBuild") as span:
        line = JsonLogFormatter().format(_record(build_id="b1", stage="vote", attempt=2))
    entry = json.loads(line)
    context = span.get_span_context()
    assert entry["trace_id"] == f"{context.trace_id:032x}" and len(entry["trace_id"]) == 32
    assert entry["span_id"] == f"{context.span_id:016x}" and len(entry["span_id"]) == 16
    assert {k: entry[k] for k in ("level", "logger", "message", "build_id", "stage", "attempt")} == {
        "level": "WARNING", "logger": "scicustom.builds", "message": "built b1", "build_id": "b1",
        "stage": "vote", "attempt": 2}
    assert entry["time"].endswith("Z") and datetime.fromisoformat(entry["time"]).utcoffset().total_seconds() == 0
    assert "\n" not in line


def test_json_line_outside_a_span_has_no_ids_and_survives_odd_values():
    entry = json.loads(JsonLogFormatter().format(_record("x\ny %d%%", (5,), path=Path("/a"), items=None)))
    assert "trace_id" not in entry and "span_id" not in entry
    assert entry["message"] == "x\ny 5%" and entry["path"] == "/a" and entry["items"] is None


def test_json_line_carries_the_exception():
    try:
        raise ValueError("bad spec")
    except ValueError:
        record = logging.LogRecord("scicustom", logging.ERROR, __file__, 1, "failed", (), sys.exc_info())
    entry = json.loads(JsonLogFormatter().format(record))
    assert entry["exception"].startswith("Traceback") and entry["exception"].endswith("ValueError: bad spec")


def test_text_line_adds_ids_only_inside_a_span(tracing):
    formatter = TextLogFormatter()
    plain = formatter.format(_record())
    assert plain.endswith(" WARNING scicustom.builds: built b1") and "trace_id" not in plain
    with tracing.provider.get_tracer("test").start_as_current_span("vote"):
        ids = trace_ids()
        traced = formatter.format(_record())
    assert ids is not None
    assert traced.endswith(f" WARNING scicustom.builds: built b1 trace_id={ids[0]} span_id={ids[1]}")
    assert trace_ids() is None


@pytest.fixture
def root_logger():
    root = logging.getLogger()
    level, handlers = root.level, list(root.handlers)
    yield root
    root.handlers[:] = handlers
    root.setLevel(level)


def test_configure_logging_installs_one_handler_in_the_chosen_format(root_logger, capsys, tracing):
    configure_logging("text", verbose=False)
    configure_logging("json", verbose=True)
    ours = [h for h in root_logger.handlers if type(h).__name__ == "_ConfiguredHandler"]
    assert len(ours) == 1 and isinstance(ours[0].formatter, RedactingFormatter)
    assert isinstance(ours[0].formatter.inner, JsonLogFormatter)
    assert root_logger.level == logging.INFO
    with tracing.provider.get_tracer("test").start_as_current_span("GetBuild"):
        logging.getLogger("scicustom.test").info("served %d", 3, extra={"build_id": "b9"})
    lines = [json.loads(line) for line in capsys.readouterr().err.splitlines()]
    [entry] = [e for e in lines if e["logger"] == "scicustom.test"]
    assert entry["message"] == "served 3" and entry["build_id"] == "b9" and len(entry["trace_id"]) == 32
    configure_logging("text", verbose=False)
    assert root_logger.level == logging.WARNING
    with pytest.raises(ValueError, match="text or json"):
        configure_logging("xml", verbose=False)  # type: ignore[arg-type]
