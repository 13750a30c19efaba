"""Input rows of the M2M metrics, read the way the reference release reads them.

CSV: pandas' `read_csv` with its defaults (so "NA", "null", "None" and empty cells are missing, numbers
are parsed), then only the 14 text columns of the vocabulary are filled with "" and cast to str. Every
value then reaches the metrics as `str(value)`: a missing `problem_core` or `target_property` becomes
"nan", as in the reference (unless `missing_as_empty`). A column absent from the file reads as "" (the
reference's `row.get(field, "")`).

JSONL: one JSON object per line; a missing key or null is treated like an empty CSV cell, strings are
kept as they are, numbers and booleans become `str(value)`, anything else is an InvalidInput.
"""

from __future__ import annotations

import io
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from scicustom.core.errors import InvalidInput
from scicustom.core.jsonl import NotJSON, json_loads, jsonl_lines
from scicustom.core.m2m.plain_csv import Missing, read_plain_csv

_PLAIN_COLUMN = re.compile(r"[\w.-]+")
MISSING_AS_STR = "nan"  # str(float("nan")): what the reference sees for a missing non-text value


@dataclass(frozen=True)
class M2MRecords:
    """Column-major table of strings; `columns` holds every input column, as the metrics see it."""

    columns: Mapping[str, tuple[str, ...]]
    size: int

    def __len__(self) -> int:
        return self.size

    def has(self, name: str) -> bool:
        return name in self.columns

    def text(self, name: str) -> tuple[str, ...]:
        """The column, or "" for every row when the input has no such column."""
        found = self.columns.get(name)
        return found if found is not None else ("",) * self.size

    def subset(self, indices: Sequence[int]) -> M2MRecords:
        return M2MRecords({name: tuple(values[i] for i in indices) for name, values in self.columns.items()},
                          len(indices))


def records_from_csv(data: bytes, text_columns: Iterable[str], *, missing_as_empty: bool = False) -> M2MRecords:
    filled = set(text_columns)
    plain = read_plain_csv(data)
    if plain is not None:  # what pandas would read, without importing it (see plain_csv)
        size = len(next(iter(plain.values())))
        return M2MRecords({name: _plain_column(values, name in filled or missing_as_empty)
                           for name, values in plain.items()}, size)
    return _records_from_pandas(data, filled, missing_as_empty)


def _plain_column(values: list[str | Missing], as_empty: bool) -> tuple[str, ...]:
    missing = "" if as_empty else MISSING_AS_STR
    return tuple([value if isinstance(value, str) else missing for value in values])


def _records_from_pandas(data: bytes, text_columns: set[str], missing_as_empty: bool) -> M2MRecords:
    import pandas as pd  # imported here: only files plain_csv cannot read need it, and it is slow to import

    try:
        frame = pd.read_csv(io.BytesIO(data))
    except (ValueError, UnicodeDecodeError, pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise InvalidInput("input", f"not a readable CSV file: {exc}") from exc
    for name in text_columns:
        if name in frame.columns:
            frame[name] = frame[name].fillna("").astype(str)
    columns: dict[str, tuple[str, ...]] = {}
    for name in frame.columns:
        values = frame[name].tolist()
        columns[str(name)] = tuple(_as_text(v, missing_as_empty) for v in values)
    return M2MRecords(columns, len(frame))


def records_from_jsonl(data: bytes, text_columns: Iterable[str], *, missing_as_empty: bool = False) -> M2MRecords:
    try:
        lines = jsonl_lines(data.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise InvalidInput("input", f"not UTF-8: {exc}") from exc
    rows: list[Mapping[str, Any]] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            row = json_loads(line)
        except NotJSON as exc:
            raise InvalidInput("input", f"line {number} is not JSON: {exc}") from exc
        if not isinstance(row, dict):
            raise InvalidInput("input", f"line {number} is not a JSON object")
        rows.append(row)
    names: dict[str, None] = {}
    for row in rows:
        names.update(dict.fromkeys(row))
    filled = set(text_columns)
    columns: dict[str, tuple[str, ...]] = {}
    for name in names:
        missing = "" if (name in filled or missing_as_empty) else MISSING_AS_STR
        columns[name] = tuple(_json_text(row.get(name), missing, name, i) for i, row in enumerate(rows, 1))
    return M2MRecords(columns, len(rows))


def _as_text(value: Any, missing_as_empty: bool) -> str:
    if missing_as_empty and isinstance(value, float) and math.isnan(value):
        return ""
    return str(value)


def _json_text(value: Any, missing: str, name: str, row: int) -> str:
    if value is None:
        return missing
    if isinstance(value, str):
        return value
    if isinstance(value, bool | int | float):
        return str(value)
    if _PLAIN_COLUMN.fullmatch(name):
        raise InvalidInput(name, f"row {row}: expected a string, got {type(value).__name__}")
    # A column that cannot be read as a field name ("", spaces, ':'): the input is named, the column quoted.
    raise InvalidInput("input", f"row {row}, column {name[:80]!r}: expected a string, got {type(value).__name__}")
