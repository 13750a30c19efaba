"""What every export says: the questions read from a build (with and without the structured
fields), the facts of the build, the dataset card, the CSV table. No export library needed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from scicustom.app.export.finished_build import read_finished_build
from scicustom.core.errors import InvalidInput
from scicustom.core.export.csv_table import csv_table
from scicustom.core.export.dataset_card import about_markdown, card_header, licence_counts
from scicustom.core.export.export_items import export_items
from scicustom.core.export.inspect_samples import inspect_sample
from scicustom.core.export.lm_eval_task import lm_eval_tasks
from tests.unit.export.build_dir_fixture import MCQS, write_build


def _lines(rows: list[dict[str, object]]) -> list[str]:
    return [json.dumps(r) for r in rows]


def test_items_keep_choices_answer_and_provenance() -> None:
    items = export_items(_lines(MCQS), "benchmark.jsonl")
    assert [len(i.choices) for i in items] == [4, 5, 4, 5, 4]
    sciq = items[3]
    assert sciq.question == "Which has the largest atomic radius?"
    assert sciq.choices[4] == "Cs, the heaviest\nstable alkali"  # as written, not as joined in the query
    assert (sciq.answer, sciq.answer_index, sciq.labels) == ("E", 4, ["A", "B", "C", "D", "E"])
    assert (sciq.source, sciq.licence, sciq.units, sciq.candidate_rank, sciq.distractor_method) == (
        "sciq", "CC-BY-NC-3.0", ("Periodic table",), 3, "nearest-items")


def test_rows_built_before_choices_existed_take_them_from_the_query() -> None:
    old = [{k: v for k, v in MCQS[1].items() if k not in ("choices", "answer_index")}]
    (item,) = export_items(_lines(old), "benchmark.jsonl")
    assert item.choices == ("+2", "+4", "+6", "+7", "-1") and item.answer_index == 3


@pytest.mark.parametrize(("row", "problem"), [
    ({**MCQS[0], "provenance": None}, "line 1: missing provenance"),
    ({**MCQS[0], "provenance": {**MCQS[0]["provenance"], "licence": ""}}, "no 'licence'"),
    ({**MCQS[0], "provenance": {**MCQS[0]["provenance"], "candidate_rank": "3"}}, "candidate_rank"),
    ({**MCQS[0], "answer_index": 0}, "answer_index 0 does not point at answer 'B'"),
    ({**MCQS[0], "choices": ["x", "y"]}, "2 choices but the query lists 4"),
])
def test_bad_rows_name_the_line(row: dict[str, object], problem: str) -> None:
    with pytest.raises(InvalidInput, match=problem):
        export_items(_lines([row]), "benchmark.jsonl")


def test_an_empty_benchmark_has_nothing_to_export() -> None:
    with pytest.raises(InvalidInput, match="no questions to export"):
        export_items([], "b/benchmark.jsonl")


@pytest.mark.parametrize(("name", "text", "problem"), [
    ("config.json", None, "config.json: missing: BUILD_DIR is not a finished build"),
    ("config.json", "{", "config.json: not JSON"),
    ("config.json", "[]", "config.json: expected a JSON object"),
    ("config.json", '{"scicustom_version": "0.1.0", "requirement": {}}', "config.json: missing 'name'"),
    ("voting.json", '{"units": [{"id": "x"}]}', "voting.json: a voted unit has no name"),
    ("benchmark.jsonl", None, "benchmark.jsonl: missing"),
    ("benchmark.jsonl", '{"id": "q"}\n', "benchmark.jsonl line 1: missing or empty string field 'query'"),
])
def test_a_build_directory_with_a_bad_file_is_named(tmp_path: Path, name: str, text: str | None,
                                                     problem: str) -> None:
    build = write_build(tmp_path / "b")
    if text is None:
        (build / name).unlink()
    else:
        (build / name).write_text(text)
    with pytest.raises(InvalidInput, match=problem):
        read_finished_build(build)


def test_facts_and_dataset_card(tmp_path: Path) -> None:
    build = read_finished_build(write_build(tmp_path / "b"))
    facts = build.facts
    assert facts.task_name == "scicustom_inorganic_chemistry_test"
    assert licence_counts(build.items) == [("arc", "CC-BY-SA-4.0", 3), ("sciq", "CC-BY-NC-3.0", 2)]
    header = card_header(facts, build.items)
    assert header["license"] == "other" and header["license_name"] == "CC-BY-NC-3.0 + CC-BY-SA-4.0"
    card = about_markdown(facts, build.items)
    assert "| arc | CC-BY-SA-4.0 | 3 |" in card and "| sciq | CC-BY-NC-3.0 | 2 |" in card
    # voted units with the jury's rank and how many questions carry each
    assert "| 1 | Periodic table | 1.5 | 3 |" in card and "| 4 | Solid-state chemistry | 9 | 0 |" in card
    assert facts.benchmark_sha256 in card and '"seed": 7' in card and "trained-test" in card
    assert "oxidation states, ligand fields" in card and "thin units: Ligand field theory" in card


def test_csv_table_pads_short_questions_to_the_widest() -> None:
    header, *rows = csv_table(export_items(_lines(MCQS), "b"))
    assert header[:7] == ["id", "question", "A", "B", "C", "D", "E"]
    assert rows[0][2:10] == ["Sodium", "Chlorine", "Argon", "Iron", "", "B", 1, "arc"]
    assert rows[2][header.index("units")] == "Ligand field theory; Coordination chemistry"


def test_lm_eval_configs_and_inspect_records() -> None:
    configs = lm_eval_tasks("scicustom_x", "/abs/data.jsonl")
    assert set(configs) == {"scicustom_x.yaml", "scicustom_x_cloze.yaml"}
    for config in configs.values():
        assert config["dataset_path"] == "json" and config["output_type"] == "multiple_choice"
        assert config["dataset_kwargs"] == {"data_files": {"test": "/abs/data.jsonl"}}
    item = export_items(_lines(MCQS), "b")[1]
    sample = inspect_sample(item, "req")
    assert (sample["input"], sample["target"], len(sample["choices"])) == (item.question, "D", 5)
    assert sample["metadata"]["licence"] == "CC-BY-NC-3.0" and sample["metadata"]["requirement"] == "req"
