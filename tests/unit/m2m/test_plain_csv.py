"""The csv-module reader gives what pandas' read_csv gives, or hands the file to pandas."""

from __future__ import annotations

import csv
import io

from hypothesis import given, settings
from hypothesis import strategies as st

from scicustom.core.errors import InvalidInput
from scicustom.core.m2m.plain_csv import read_plain_csv
from scicustom.core.m2m.records import _records_from_pandas, records_from_csv

TEXT = ("hypothesis", "keywords")  # filled with "" like the vocabulary's text columns; "id" and "note" are not
CELLS = st.one_of(
    st.sampled_from(["", "NA", "null", "None", "nan", "NaN", "n/a", "#N/A", "True", "false", "0", "-0", "7", "12",
                     "007", "1.5", "1e3", " 3", "inf", "-12", "+4", "123456789012345", "1234567890123456",
                     "a,b", 'say "hi"', "two\nlines", "\r\n", "µm", "١٢", "  ", "x"]),
    st.text(alphabet=st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=8),
    st.integers(-10**6, 10**6).map(str),
)


def _csv(header: list[str], rows: list[list[str]]) -> bytes:
    buffer = io.StringIO()
    writer = csv.writer(buffer)
    writer.writerow(header)
    writer.writerows(rows)
    return buffer.getvalue().encode("utf-8")


@settings(max_examples=300, deadline=None)
@given(columns=st.integers(2, 4).flatmap(lambda w: st.lists(st.lists(CELLS, min_size=w, max_size=w), max_size=12)),
       missing_as_empty=st.booleans())
def test_same_records_as_pandas_or_none(columns: list[list[str]], missing_as_empty: bool) -> None:
    width = len(columns[0]) if columns else 2
    header = ["id", "hypothesis", "note", "keywords"][:width]
    data = _csv(header, columns)
    expected = _records_from_pandas(data, set(TEXT), missing_as_empty)
    assert records_from_csv(data, TEXT, missing_as_empty=missing_as_empty) == expected


def test_plain_columns_are_read_without_pandas() -> None:
    data = _csv(["paper_id", "hypothesis", "steps", "gaps"],
                [["p1", "Coating, thereby", "3", "4"], ["p2", "NA", "12", ""], ["p3", 'a "quoted"\nline', "0", "5"]])
    plain = read_plain_csv(data)
    assert plain is not None
    records = records_from_csv(data, ["hypothesis"])
    assert records == _records_from_pandas(data, {"hypothesis"}, False)
    assert records.text("hypothesis") == ("Coating, thereby", "", 'a "quoted"\nline')
    assert records.text("steps") == ("3", "12", "0") and records.text("gaps") == ("4.0", "nan", "5.0")


def test_line_breaks_only_str_splitlines_knows_stay_in_their_cell() -> None:
    for cells in (["a\x1cb", "c\u2028d\x85e"], ["a\x1cb", "end\u2029"], ["x", "y"]):
        data = _csv(["id", "hypothesis"], [["p1", cells[0]], ["p2", cells[1]]])
        assert records_from_csv(data, TEXT).text("hypothesis") == tuple(cells)
        assert records_from_csv(data, TEXT) == _records_from_pandas(data, set(TEXT), False)
        assert records_from_csv(data.rstrip(b"\r\n"), TEXT).text("hypothesis") == tuple(cells)


def test_what_only_pandas_can_say_goes_to_pandas() -> None:
    assert read_plain_csv(_csv(["a", "b"], [["1.5", "x"]])) is None  # float formatting
    assert read_plain_csv(_csv(["a", "b"], [["1", "x"], ["y", "z"]])) is None  # numbers and strings mixed
    assert read_plain_csv(_csv(["a", "a"], [["x", "y"]])) is None  # repeated names are mangled
    assert read_plain_csv(_csv(["a", ""], [["x", "y"]])) is None  # "Unnamed: 1"
    assert read_plain_csv(b"a,b\nx,y,z\n") is None  # a wider row makes an index
    assert read_plain_csv("\ufeffa,b\nx,y\n".encode()) is None
    assert read_plain_csv(b"a,b\n\xff,y\n") is None
    assert read_plain_csv(_csv(["a", "b"], [["True", "x"]])) is None


@settings(max_examples=300, deadline=None)
@given(body=st.text(alphabet='ab1,"\n\r .\t-NaTrue0', min_size=1, max_size=40))
def test_raw_text_reads_as_pandas_reads_it(body: str) -> None:
    """Malformed quotes, lone carriage returns, blank lines: same records or the same refusal."""
    data = ("id,hypothesis,x\n" + body).encode()
    outcomes = []
    for read in (lambda: _records_from_pandas(data, {"hypothesis"}, False),
                 lambda: records_from_csv(data, ["hypothesis"])):
        try:
            outcomes.append(read())
        except InvalidInput:
            outcomes.append("refused")
    assert outcomes[0] == outcomes[1]
