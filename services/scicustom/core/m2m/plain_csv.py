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
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if text.startswith("\ufeff") or "\x00" in text:  # pandas drops the mark; its tokenizer stops at NUL
        return None
    if "\r" in text.replace("\r\n", ""):  # a lone carriage return splits lines differently in the two
        return None
    try:
        rows = [row for row in csv.reader(io.StringIO(text, newline=""), strict=True) if row]
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
    for position, name in enumerate(header):
        column = _column([row[position] for row in body])
        if column is None:
            return None
        columns[name] = column
    return columns


def _column(cells: list[str]) -> list[str | Missing] | None:
    strings = integers = missing = False
    for cell in cells:
        if cell in NA_MARKERS:
            missing = True
        elif cell in BOOLEAN_WORDS:
            return None
        elif _NUMBER_LIKE.fullmatch(cell):
            if not _CANONICAL_INT.fullmatch(cell):
                return None
            integers = True
        else:
            strings = True
    if strings and integers:
        return None
    as_float = integers and missing  # an integer column with a missing value is float64 in pandas
    return [MISSING if cell in NA_MARKERS else (cell + ".0" if as_float else cell) for cell in cells]
