"""JSON Lines are split at line feeds only: a JSON string may hold U+0085, U+2028 and U+2029
unescaped, which str.splitlines treats as line breaks (a corpus question with U+0085 failed a build)."""

from __future__ import annotations

import json

from hypothesis import given
from hypothesis import strategies as st

from scicustom.core.build.build_diff import parse_build_files
from scicustom.core.jsonl import jsonl_lines, parse_jsonl
from scicustom.core.m2m.records import records_from_jsonl

SEPARATORS = "\x85\u2028\u2029"


@given(st.lists(st.dictionaries(st.text(max_size=5), st.text(alphabet=st.characters(), max_size=20), max_size=3),
                max_size=5))
def test_every_row_written_with_ensure_ascii_off_is_read_back(rows):
    text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows)
    assert [row for _, row in parse_jsonl(jsonl_lines(text), "t")] == rows


def test_a_build_whose_question_holds_a_line_separator_is_read_whole():
    question = {"id": "medmcqa-1", "query": f"Which{SEPARATORS}vitamin?", "answer": "A"}
    files = {"benchmark.jsonl": json.dumps(question, ensure_ascii=False) + "\n", "coverage.json": "{}",
             "voting.json": "{}", "config.json": "{}"}
    assert parse_build_files(files, "--since")["ids"] == ["medmcqa-1"]


def test_an_m2m_cell_holding_a_line_separator_stays_in_its_row():
    data = (json.dumps({"paper_id": "p1", "hypothesis": f"a{SEPARATORS}b"}, ensure_ascii=False) + "\n").encode()
    records = records_from_jsonl(data, ["hypothesis"])
    assert len(records) == 1 and records.text("hypothesis")[0] == f"a{SEPARATORS}b"
