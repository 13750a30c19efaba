"""Read an M2M CSV with the csv module when that gives what pandas' `read_csv` defaults give.

Importing pandas costs more than scoring 2,645 rows takes, so `scicustom score m2m` reads the file
itself whenever every column is one whose pandas reading is certain:
- strings (pandas' object dtype), where the default NA markers ("", "NA", "null", "nan", ...) are
  missing values;
- canonical integers of at most 15 digits (int64: the text itself), also with missing values (float64:
  the text plus ".0", exactly str(float(n))).
Anything else (floats, booleans, a column mixing numbers and strings, which pandas types per chunk of
rows, a header with empty or repeated names, a row of another width, a byte-order mark, text that is
not UTF-8, a NUL byte, a lone carriage return, a malformed quote)
returns None, and the caller reads the file with pandas as before.
"""

from __future__ import annotations

import csv
import io
import re

# pandas' STR_NA_VALUES (the default na_values of read_csv), pandas 2.3.
NA_MARKERS = frozenset({"", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN",
                        "<NA>", "N/A", "NA", "NULL", "NaN", "None", "n/a", "nan", "null"})
BOOLEAN_WORDS = frozenset({"True", "TRUE", "true", "False", "FALSE", "false"})
# A longer cell is neither: its length rules it out without hashing a long text.
_MARKER_CHARS = max(len(word) for word in NA_MARKERS | BOOLEAN_WORDS)
# Anything pandas' number parser might take, spaces around included.
_NUMBER_LIKE = re.compile(r"\s*[+-]?([0-9]+\.?[0-9]*([eE][+-]?[0-9]+)?|\.[0-9]+([eE][+-]?[0-9]+)?"
                          r"|inf|infinity|nan)\s*", re.IGNORECASE)
_CANONICAL_INT = re.compile(r"-?[1-9][0-9]{0,14}|0")


class Missing:
    """A cell pandas reads as NaN (the caller decides what text it becomes)."""


MISSING = Missing()


def read_plain_csv(data: bytes) -> dict[str, list[str | Missing]] | None:
    """Columns in file order, each a list of texts (as `str()` of pandas' value) or MISSING; None when
    only pandas can say what the file reads as."""
    # Tested on the bytes, where memchr finds them: in UTF-8 these bytes are only these characters.
    if b"\x00" in data:  # pandas' tokenizer stops at NUL
        return None
    if data.count(b"\r") != data.count(b"\r\n"):  # a lone carriage return splits lines differently in the two
        return None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if text.startswith("\ufeff"):  # pandas drops the mark
        return None
    # The csv module reads a list of lines faster than a stream. str.splitlines breaks where the stream
    # does (after "\n", with no lone "\r") unless the text holds another line break it knows ("\x1c",
    # "\u2028", ...) before its end, which gives it one line more than the "\n"s.
    lines = text.splitlines(keepends=True)
    same_lines = len(lines) == text.count("\n") + (not text.endswith("\n"))
    try:
        rows = [row for row in csv.reader(lines if same_lines else io.StringIO(text, newline=""), strict=True) if row]
    except csv.Error:
        return None
    if not rows:
        return None
    header, body = rows[0], rows[1:]
    width = len(header)
    # One column: pandas may skip whitespace-only lines that csv keeps.
    if width < 2 or "" in header or len(set(header)) != width or any(len(row) != width for row in body):
        return None
    columns: dict[str, list[str | Missing]] = {}
    for name, cells in zip(header, zip(*body, strict=True) if body else [()] * width, strict=True):
        column = _column(cells)
        if column is None:
            return None
        columns[name] = column
    return columns


def _column(cells: tuple[str, ...]) -> list[str | Missing] | None:
    strings = integers = missing = False
    for cell in cells:
        short = len(cell) <= _MARKER_CHARS
        if short and cell in NA_MARKERS:
            missing = True
        elif short and cell in BOOLEAN_WORDS:
            return None
        elif _NUMBER_LIKE.fullmatch(cell):
            if not _CANONICAL_INT.fullmatch(cell):
                return None
            integers = True
        else:
            strings = True
    if strings and integers:
        return None
    if not missing:
        return list(cells)
    # An integer column with a missing value is float64 in pandas.
    return [MISSING if len(cell) <= _MARKER_CHARS and cell in NA_MARKERS else (cell + ".0" if integers else cell)
            for cell in cells]
