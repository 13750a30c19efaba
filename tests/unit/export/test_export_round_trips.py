"""Each export loaded by its own library: lm-evaluation-harness, inspect_ai, Hugging Face datasets,
and the csv module. The libraries are imported once for the module (lm_eval takes seconds)."""

from __future__ import annotations

import csv
import importlib.util
import socket
from pathlib import Path
from typing import Any

import datasets
import pytest
import yaml
from inspect_ai import Task
from inspect_ai.dataset import json_dataset
from lm_eval.tasks import TaskManager

from scicustom.app.export.exporter import export_build
from tests.unit.export.build_dir_fixture import CONFIG, MCQS, write_build

TASK = "scicustom_inorganic_chemistry_test"


@pytest.fixture(scope="module")
def exports(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("exports")
    build = write_build(root / "build")
    return {fmt: export_build(build, root / fmt, fmt).out for fmt in ("lm-eval", "inspect", "hf", "csv")}


@pytest.fixture
def offline(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """No network (HF_DATASETS_OFFLINE=1 and no socket may connect) and a throwaway datasets cache."""
    monkeypatch.setattr(datasets.config, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(datasets.config, "HF_DATASETS_OFFLINE", True)
    monkeypatch.setattr(datasets.config, "HF_DATASETS_CACHE", tmp_path / "hf-cache")

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise OSError(f"network access in an offline test: {args}")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)


def _letters(n: int) -> list[str]:
    return list("ABCDE"[:n])


def test_lm_eval_loads_both_tasks(exports: dict[str, Path], offline: None) -> None:
    manager = TaskManager(include_path=str(exports["lm-eval"]), include_defaults=False)
    tasks = manager.load([TASK, f"{TASK}_cloze"])["tasks"]
    labels, cloze = tasks[TASK], tasks[f"{TASK}_cloze"]
    for task in (labels, cloze):
        assert task.OUTPUT_TYPE == "multiple_choice" and task.has_test_docs()
        assert [d["id"] for d in task.test_docs()] == [m["id"] for m in MCQS]
    for doc, mcq in zip(labels.test_docs(), MCQS, strict=True):
        assert labels.doc_to_text(doc) == f"Question: {mcq['query']}\nAnswer:"
        assert labels.doc_to_choice(doc) == _letters(len(mcq["choices"]))
        assert labels.doc_to_target(doc) == mcq["answer_index"]
        assert cloze.doc_to_text(doc) == f"Question: {mcq['query'].splitlines()[0]}\nAnswer:"
        assert cloze.doc_to_choice(doc) == mcq["choices"]
        assert cloze.doc_to_target(doc) == mcq["answer_index"]
    # the requests lm-eval would send a model: one continuation per option, 4 or 5 of them
    doc = next(iter(labels.test_docs()))
    requests = labels.construct_requests(doc, labels.doc_to_text(doc), metadata=(TASK, 0, 1))
    assert [r.arguments[1] for r in requests] == [" A", " B", " C", " D"]


def test_inspect_reads_samples_and_the_task_file(exports: dict[str, Path]) -> None:
    samples = json_dataset(str(exports["inspect"] / "samples.jsonl"))
    assert len(samples) == len(MCQS)
    for sample, mcq in zip(samples, MCQS, strict=True):
        assert sample.id == mcq["id"] and sample.input == mcq["query"].splitlines()[0]
        assert sample.choices == mcq["choices"] and sample.target == mcq["answer"]
        assert sample.metadata is not None
        assert sample.metadata["source"] == mcq["provenance"]["source"]
        assert sample.metadata["licence"] == mcq["provenance"]["licence"]
    spec = importlib.util.spec_from_file_location("exported_task", exports["inspect"] / f"{TASK}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    task = getattr(module, TASK)()
    assert isinstance(task, Task) and len(task.dataset) == len(MCQS)


def test_hf_load_from_disk_and_its_card(exports: dict[str, Path], offline: None) -> None:
    dataset = datasets.load_from_disk(str(exports["hf"]))
    assert dataset.num_rows == len(MCQS)
    assert dataset.features["choices"] == datasets.List(datasets.Value("string"))
    for row, mcq in zip(dataset, MCQS, strict=True):
        assert (row["id"], row["choices"], row["answer_index"], row["answer"]) == (
            mcq["id"], mcq["choices"], mcq["answer_index"], mcq["answer"])
        assert (row["source"], row["licence"], row["units"]) == (
            mcq["provenance"]["source"], mcq["provenance"]["licence"], mcq["provenance"]["units"])
    card = (exports["hf"] / "README.md").read_text()
    _, front, body = card.split("---\n", 2)
    header = yaml.safe_load(front)
    assert header["license"] == "other" and header["license_name"] == "CC-BY-NC-3.0 + CC-BY-SA-4.0"
    assert header["task_categories"] == ["multiple-choice", "question-answering"]
    assert CONFIG["requirement"]["description"] in body
    assert "| Periodic table | 1.5 | 3 |" in body and "| sciq | CC-BY-NC-3.0 | 2 |" in body
    assert "scicustom version: `0.1.0`" in body and '"seed": 7' in body and "trained-test" in body


def test_csv_has_one_row_per_question_with_the_widest_option_columns(exports: dict[str, Path]) -> None:
    with (exports["csv"] / "benchmark.csv").open(newline="", encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == len(MCQS)
    for row, mcq in zip(rows, MCQS, strict=True):
        choices = mcq["choices"]
        assert [row[label] for label in "ABCDE"] == [*choices, *[""] * (5 - len(choices))]
        assert (row["answer"], int(row["answer_index"])) == (mcq["answer"], mcq["answer_index"])
        assert (row["source"], row["licence"]) == (mcq["provenance"]["source"], mcq["provenance"]["licence"])
        assert row["units"].split("; ") == mcq["provenance"]["units"]
