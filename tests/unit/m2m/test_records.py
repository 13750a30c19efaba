"""Reading the input as the reference does: pandas defaults, only the 14 text columns filled."""

from __future__ import annotations

import pytest

from scicustom.core.errors import InvalidInput
from scicustom.core.m2m.records import records_from_csv, records_from_jsonl

CSV = (b"paper_id,hypothesis,problem_core,target_property,keywords,num_reasoning_steps\n"
       b"1,NA,,None,5,3\n"
       b"2,\"multi\nline\",core text,null,,x\n")


def test_csv_fills_only_text_columns(vocabulary) -> None:
    records = records_from_csv(CSV, vocabulary.text_columns)
    assert records.text("paper_id") == ("1", "2")
    assert records.text("hypothesis") == ("", "multi\nline")  # "NA" is missing, then filled with ""
    assert records.text("problem_core") == ("nan", "core text")  # not a text column: str(nan)
    assert records.text("target_property") == ("nan", "nan")  # "None" and "null" are missing values too
    assert records.text("keywords") == ("5.0", "")  # numbers parsed, then cast to str
    assert records.text("component") == ("", "")  # absent column reads as ""
    assert not records.has("component")


def test_csv_missing_as_empty(vocabulary) -> None:
    records = records_from_csv(CSV, vocabulary.text_columns, missing_as_empty=True)
    assert records.text("problem_core") == ("", "core text")


def test_jsonl_nulls_behave_like_empty_cells(vocabulary) -> None:
    data = (b'{"paper_id": "a", "hypothesis": null, "problem_core": null, "keywords": 5}\n\n'
            b'{"paper_id": "b", "hypothesis": "h \\u00b5m"}\n')
    records = records_from_jsonl(data, vocabulary.text_columns)
    assert records.text("hypothesis") == ("", "h µm")
    assert records.text("problem_core") == ("nan", "nan")
    assert records.text("keywords") == ("5", "")


@pytest.mark.parametrize("data", [b'{"paper_id": 1}\nnot json\n', b"[1, 2]\n", b'{"hypothesis": ["a"]}\n',
                                  b"\xff\xfe"])
def test_bad_jsonl_is_invalid_input(vocabulary, data: bytes) -> None:
    with pytest.raises(InvalidInput):
        records_from_jsonl(data, vocabulary.text_columns)


@pytest.mark.parametrize("data", [b"", b"\xff\xfe\x00a", b'a,b\n"1,2\n'])
def test_bad_csv_is_invalid_input(vocabulary, data: bytes) -> None:
    with pytest.raises(InvalidInput):
        records_from_csv(data, vocabulary.text_columns)
