"""The readers of user files, fed generated and hostile documents: the requirement YAML, the JSONL
readers (core/jsonl, corpus import, `tag` input, `evaluate` benchmark lines, SciIF items and answers,
AlchemyBench expert ratings and recipes) and the M2M CSV/JSONL rows.

Property: each returns its result or raises InvalidInput whose field names what the user must fix
(the flag, the file and line, or the key); never another exception, and a failed read writes
nothing (`tag` output, corpus tables).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scicustom.adapters.filesystem_store import FilesystemObjectStore
from scicustom.adapters.parquet_corpus import ParquetCorpusRepository
from scicustom.app.build.request import requirement_from_yaml_text
from scicustom.app.ingest.corpus_importer import import_jsonl
from scicustom.app.scoring.m2m import load_vocabulary
from scicustom.app.scoring.sciif import load_catalog
from scicustom.app.tagging.file_tagging import TaggerChoice, tag_file
from scicustom.core.alchemy.recipe import parse_recipe
from scicustom.core.alchemy.report import CRITERIA, OVERALL, parse_expert_rating
from scicustom.core.errors import InvalidInput
from scicustom.core.evaluation.benchmark_lines import parse_benchmark
from scicustom.core.jsonl import parse_jsonl, read_jsonl
from scicustom.core.m2m.records import records_from_csv, records_from_jsonl
from scicustom.core.requirement import Requirement
from scicustom.core.sciif.items import parse_answers, parse_items
from scicustom.ports import UnitScore
from tests.fuzz.documents import encoded, json_objects, json_values, jsonl_lines, requirement_documents
from tests.fuzz.fuzz_settings import fuzzed
from tests.fuzz.proto_messages import TEXT


def invalid_or(call: Callable[[], Any], field: Callable[[str], bool]) -> Any:
    """The result of `call`, or None when it raised InvalidInput with a field `field` accepts."""
    try:
        return call()
    except InvalidInput as exc:
        assert exc.field and field(exc.field), f"InvalidInput names {exc.field!r}: {exc}"
        assert str(exc) == f"{exc.field}: {exc.problem}"
        return None


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    yield tmp_path_factory.mktemp("readers")


def _write(folder: Path, name: str, data: bytes) -> Path:
    path = folder / name
    path.write_bytes(data)
    return path


# -- requirement YAML --------------------------------------------------------------------------------
@fuzzed()
@given(text=requirement_documents())
def test_requirement_yaml_gives_a_requirement_or_names_the_field(text: str) -> None:
    found = invalid_or(lambda: requirement_from_yaml_text(text, "requirement_yaml"),
                       lambda f: f == "requirement_yaml" or f.startswith("requirement_yaml."))
    assert found is None or isinstance(found, Requirement)


@fuzzed()
@given(text=requirement_documents())
def test_a_requirement_file_names_its_own_keys(text: str) -> None:
    invalid_or(lambda: requirement_from_yaml_text(text, "--requirement", file="r.yaml"), bool)


# -- JSON Lines ----------------------------------------------------------------------------------------
@fuzzed()
@given(lines=jsonl_lines(json_objects(["id", "question"])))
def test_jsonl_lines_give_objects_or_name_the_line(lines: list[str]) -> None:
    rows = invalid_or(lambda: list(parse_jsonl(lines, "in.jsonl")), lambda f: re.fullmatch(r"in\.jsonl line \d+", f))
    assert rows is None or all(isinstance(row, dict) for _, row in rows)


@fuzzed()
@given(data=encoded(jsonl_lines(json_objects(["id", "question"]))))
def test_a_jsonl_file_of_any_bytes_gives_objects_or_names_the_flag(files: Path, data: bytes) -> None:
    path = _write(files, "any.jsonl", data)
    invalid_or(lambda: read_jsonl(path, "--input"), lambda f: f == "--input" or f.startswith("--input any.jsonl:"))


_ITEM_KEYS = ["question", "options", "answer_index", "answer", "subject"]
_ITEM_FIELDS = {"question": st.just("What protects the viral genome?"),
                "options": st.lists(TEXT, max_size=6), "answer_index": st.integers(-1, 6), "answer": TEXT}


@fuzzed()
@given(data=encoded(jsonl_lines(json_objects(_ITEM_KEYS, _ITEM_FIELDS))),
       source=st.one_of(st.just("mine"), TEXT))
def test_corpus_import_of_any_file_imports_or_names_the_flag(files: Path, data: bytes, source: str) -> None:
    store = FilesystemObjectStore(files / "corpus-store")
    repo = ParquetCorpusRepository(store)
    before = {k: store.get_bytes(k) for k in store.list_keys("")}
    report = invalid_or(lambda: import_jsonl(repo, _write(files, "items.jsonl", data), source, "CC0"),
                        lambda f: f in ("--jsonl", "--source-name"))
    if report is None:
        assert {k: store.get_bytes(k) for k in store.list_keys("")} == before, "a refused import wrote"


class _WordTagger:
    version = "words-v1"

    def tag(self, texts: list[str], vectors: object = None) -> list[list[UnitScore]]:
        return [[UnitScore("u1", 0.9)] if "virus" in t else [] for t in texts]


_TAG_FIELDS = {"id": st.one_of(TEXT, st.integers()), "question": st.just("virus capsid?"),
               "options": st.lists(TEXT, max_size=3), "answer": TEXT}


@fuzzed()
@given(data=encoded(jsonl_lines(json_objects(list(_TAG_FIELDS), _TAG_FIELDS))))
def test_tag_input_is_tagged_whole_or_names_the_line_and_writes_nothing(files: Path, data: bytes) -> None:
    out = files / "tagged.jsonl"
    out.unlink(missing_ok=True)
    tagged = invalid_or(lambda: tag_file(_write(files, "questions.jsonl", data), out,
                                         lambda: TaggerChoice(_WordTagger(), {"u1": "Virology"})),
                        lambda f: f == "--input" or f.startswith("--input questions.jsonl:"))
    assert out.exists() == (tagged is not None)


_MCQ_FIELDS = {"id": TEXT, "query": st.sampled_from(["Q?\nA. x\nB. y", "Q?\nA. x\nB. y\nC. z", "A. only"]),
               "answer": st.sampled_from(["A", "b", "C", "E", ""]), "answer_index": st.integers(-1, 5),
               "choices": st.lists(TEXT, max_size=4)}


@fuzzed()
@given(lines=jsonl_lines(json_objects(list(_MCQ_FIELDS), _MCQ_FIELDS)))
def test_benchmark_lines_give_items_or_name_the_line(lines: list[str]) -> None:
    invalid_or(lambda: parse_benchmark(lines, "bench.jsonl"), lambda f: f.startswith("bench.jsonl"))


_SCIIF_ITEM = {"id": st.one_of(TEXT, st.integers()), "question": st.just("Compute the molar mass of water."),
               "constraints": st.one_of(st.lists(TEXT, max_size=3), TEXT), "final_answer": json_values(),
               "reference_answer": TEXT, "subject": TEXT}


@pytest.fixture(scope="module")
def catalog() -> Any:
    return load_catalog()


@fuzzed()
@given(items=st.lists(json_objects(list(_SCIIF_ITEM), _SCIIF_ITEM), max_size=4),
       answers=st.lists(json_objects(["id", "answer", "model"]), max_size=4))
def test_sciif_items_and_answers_parse_or_name_the_row(catalog: Any, items: list[dict[str, Any]],
                                                       answers: list[dict[str, Any]]) -> None:
    rows = [(f"--items:{i}", row) for i, row in enumerate(items, 1)]
    parsed = invalid_or(lambda: parse_items(rows, catalog), lambda f: f.startswith("--items:"))
    if parsed is not None:
        ids = {item.id for item in parsed}
        invalid_or(lambda: parse_answers([(f"--answers:{i}", r) for i, r in enumerate(answers, 1)], ids),
                   lambda f: f.startswith("--answers:"))


_RATING = {key: st.one_of(st.integers(1, 5), json_values()) for key in (*CRITERIA, OVERALL)}


@fuzzed()
@given(row=json_objects(["id", "rater", "group", *CRITERIA, OVERALL], {"id": TEXT, "rater": TEXT, **_RATING}))
def test_alchemy_expert_ratings_parse_or_name_the_row(row: dict[str, Any]) -> None:
    invalid_or(lambda: parse_expert_rating(row, "--expert-ratings r.jsonl:1"),
               lambda f: f.startswith("--expert-ratings r.jsonl:1"))


_RECIPE = st.lists(st.one_of(st.sampled_from(["## Target material", "## Materials", "## Synthesis steps",
                                              "## Characterization", "# Recipe", "- 1 g NaCl", "1. Heat to 900 C"]),
                             TEXT), max_size=12).map("\n".join)


@fuzzed()
@given(markdown=st.one_of(_RECIPE, TEXT))
def test_alchemy_recipes_parse_or_are_none(markdown: str) -> None:
    parse_recipe("r1", markdown)  # a library recipe that does not parse is None, never an error


@pytest.fixture(scope="module")
def text_columns() -> tuple[str, ...]:
    return load_vocabulary().text_columns


def _csv(rows: list[list[str]]) -> str:
    return "\n".join(",".join(row) for row in rows)


@fuzzed()
@given(data=st.one_of(encoded(st.lists(st.lists(st.one_of(TEXT, st.sampled_from(
    ["hypothesis", "paper_id", "NA", "null", '"', '""', "1e999", "nan", ","])), max_size=5), max_size=5).map(
        lambda rows: [_csv(rows)])), st.binary(max_size=200)),
       missing_as_empty=st.booleans())
def test_m2m_csv_rows_read_or_name_the_input(text_columns: tuple[str, ...], data: bytes,
                                             missing_as_empty: bool) -> None:
    invalid_or(lambda: records_from_csv(data, text_columns, missing_as_empty=missing_as_empty),
               lambda f: f == "input")


@fuzzed()
@given(data=encoded(jsonl_lines(json_objects(["paper_id", "hypothesis", "problem_core"]))),
       missing_as_empty=st.booleans())
def test_m2m_jsonl_rows_read_or_name_the_input(text_columns: tuple[str, ...], data: bytes,
                                               missing_as_empty: bool) -> None:
    invalid_or(lambda: records_from_jsonl(data, text_columns, missing_as_empty=missing_as_empty),
               bool)  # "input" for the file, else the column whose value is not text


# -- found by this fuzzing: each input as a plain test -------------------------------------------------
def test_found_a_jsonl_file_that_is_not_utf8_names_the_flag(tmp_path: Path) -> None:
    # UnicodeDecodeError escaped read_jsonl (tag, score sciif/alchemy) and the corpus import.
    path = _write(tmp_path, "rows.jsonl", b'{"id": "\xff"}\n')
    with pytest.raises(InvalidInput, match=r"^--input: rows.jsonl is not UTF-8 text$"):
        read_jsonl(path, "--input")
    store = FilesystemObjectStore(tmp_path / "store")
    with pytest.raises(InvalidInput, match=r"^--jsonl: rows.jsonl is not UTF-8 text$"):
        import_jsonl(ParquetCorpusRepository(store), path, "mine", "CC0")
    assert store.list_keys("") == []


@pytest.mark.parametrize(("line", "problem"), [
    ("[" * 50_000, "not JSON: nested too deeply"),
    ('{"id": ' + "9" * 5_000 + "}", "not JSON: Exceeds the limit (4300 digits) for integer string conversion"),
])
def test_found_json_lines_past_the_parsers_limits_name_the_line(line: str, problem: str) -> None:
    # RecursionError and ValueError escaped the JSONL readers.
    with pytest.raises(InvalidInput) as caught:
        list(parse_jsonl(["{}", line], "in.jsonl"))
    assert (caught.value.field, caught.value.problem) == ("in.jsonl line 2", problem)
    with pytest.raises(InvalidInput, match=r"^input: line 1 is not JSON: nested too deeply$"):
        records_from_jsonl(("[" * 50_000).encode(), ())


@pytest.mark.parametrize(("text", "file_field", "request_field"), [
    ('description: x\n"": 1\n', "requirement", "requirement_yaml"),
    ("::\n", "requirement", "requirement_yaml"),
    ("description: x\nmcq_writer: {model: m, 'a b': 1}\n", "mcq_writer", "requirement_yaml.mcq_writer"),
])
def test_found_a_requirement_key_that_is_no_field_name_names_its_mapping(text: str, file_field: str,
                                                                          request_field: str) -> None:
    # The field was "" (": unknown key ...") or held the key's ':' ("requirement_yaml.:: unknown key").
    with pytest.raises(InvalidInput, match="unknown key '") as caught:
        requirement_from_yaml_text(text, "--requirement", file="r.yaml")
    assert caught.value.field == file_field
    with pytest.raises(InvalidInput, match="unknown key '") as caught:
        requirement_from_yaml_text(text, "requirement_yaml")
    assert caught.value.field == request_field


@pytest.mark.parametrize("text", ["- " * 5_000, "description:\n" + "  - " * 3_000 + "x\n"])
def test_found_yaml_nested_thousands_deep_is_refused(text: str) -> None:
    # PyYAML's recursive composer raised RecursionError.
    with pytest.raises(InvalidInput, match=r"^requirement_yaml: nests lists and mappings deeper than 64 levels$"):
        requirement_from_yaml_text(text, "requirement_yaml")


@pytest.mark.parametrize("value", [10**400, "1e999", "nan"])
def test_found_an_expert_rating_past_floats_range_names_the_criterion(value: Any) -> None:
    # float(10**400) raised OverflowError; "1e999" and "nan" became scores no statistic can use.
    with pytest.raises(InvalidInput) as caught:
        parse_expert_rating({"id": "p1", "rater": "r", OVERALL: value}, "--expert-ratings r.jsonl:1")
    assert caught.value.field == f"--expert-ratings r.jsonl:1.{OVERALL}"
