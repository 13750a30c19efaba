"""scripts/sample_tagger_devset.py: per-source counts, exclusions and a seeded, reproducible draw."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from scripts.sample_tagger_devset import main, source_counts


def test_counts_parse_per_source() -> None:
    assert source_counts("mmlu=3,arc=0") == {"mmlu": 3, "arc": 0}


@pytest.mark.parametrize("text", ["mmlu", "mmlu=x", "bogus=3", "arc=2,mmlu=-1"])
def test_a_bad_pair_is_a_usage_error_naming_it(text: str) -> None:
    with pytest.raises(argparse.ArgumentTypeError, match="expected SOURCE=N"):
        source_counts(text)


def _store(tmp_path: Path) -> Path:
    rows = [{"id": f"{source}-{i}", "source": source, "licence": "MIT",
             "subject": "virology" if source == "mmlu" and i % 2 else "philosophy",
             "question": f"q{i}", "options": ["a", "b"], "answer": "a"}
            for source in ("mmlu", "arc") for i in range(10)]
    (tmp_path / "corpus").mkdir(exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "corpus" / "items.parquet")
    return tmp_path


def _draw(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, out: str, *extra: str) -> list[dict[str, object]]:
    monkeypatch.setattr(sys, "argv", ["sample", "--store", str(_store(tmp_path)), "--out", str(tmp_path / out),
                                      "--split", "train", *extra])
    main()
    return [json.loads(line) for line in (tmp_path / out).read_text(encoding="utf-8").splitlines()]


def test_counts_draw_that_many_science_items_per_source_never_an_excluded_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "taken.jsonl").write_text(json.dumps({"id": "arc-0"}) + "\n", encoding="utf-8")
    drawn = _draw(tmp_path, monkeypatch, "a.jsonl", "--counts", "mmlu=3,arc=10", "--exclude",
                  str(tmp_path / "taken.jsonl"))
    mmlu = [r for r in drawn if r["source"] == "mmlu"]
    arc = [r for r in drawn if r["source"] == "arc"]
    assert len(mmlu) == 3 and all(r["subject"] == "virology" for r in mmlu)  # MMLU's science subjects only
    assert len(arc) == 9 and "arc-0" not in {r["id"] for r in arc}  # all of the pool but the excluded item
    assert {r["split"] for r in drawn} == {"train"}


def test_the_same_seed_draws_the_same_items(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    first = _draw(tmp_path, monkeypatch, "a.jsonl", "--counts", "arc=4")
    again = _draw(tmp_path, monkeypatch, "b.jsonl", "--counts", "arc=4")
    other = _draw(tmp_path, monkeypatch, "c.jsonl", "--counts", "arc=4", "--seed", "7")
    assert first == again and first != other
