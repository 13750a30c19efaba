from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from scicustom.adapters.filesystem_store import FilesystemObjectStore
from scicustom.adapters.onnx_tagger import OnnxTagger
from scicustom.adapters.parquet_corpus import ParquetCorpusRepository
from scicustom.adapters.sparse_unit_index import SparseUnitIndex
from scicustom.adapters.sparse_unit_index_writer import SparseUnitIndexWriter
from scicustom.app.tagging.trained_tagging import retag_corpus, text_digest
from scicustom.cli import main
from tests.unit.tagger.tiny_world import corpus_items


def test_retag_is_incremental_and_becomes_the_current_index(tiny_trained, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    _, result = tiny_trained
    tagger = OnnxTagger(result.artifact.directory)
    repo = ParquetCorpusRepository(FilesystemObjectStore(tmp_path / "store"))
    items = corpus_items(copies=2)
    repo.save_items(items)
    writer = SparseUnitIndexWriter(repo.store)
    reported: list[tuple[str, int, int]] = []
    first = retag_corpus(repo, tagger, tagger.artifact.unit_ids, "ku_6", writer, batch=3,
                         progress=lambda *step: reported.append(step))
    assert first.tagged == len(items) and first.tagger_version == tagger.version
    assert reported[-1] == ("retag", len(items), len(items))
    assert [done for _, done, _ in reported] == sorted({min(k, len(items)) for k in range(3, len(items) + 3, 3)})
    current = json.loads(repo.store.get_bytes("index/current.json"))
    assert current == {"tagger_version": tagger.version, "index_key": f"index/{tagger.version}/unit_index.npz"}
    index = SparseUnitIndex.load(repo.store, current["index_key"])
    assert sorted(index.item_ids()) == sorted(it.id for it in items)
    assert retag_corpus(repo, tagger, tagger.artifact.unit_ids, "ku_6", writer).tagged == 0
    # Same id (ids normalise case), new text: only that item is tagged again.
    changed = dataclasses.replace(items[0], question=items[0].question.upper())
    repo.save_items([changed, *items[1:]])
    third = retag_corpus(repo, tagger, tagger.artifact.unit_ids, "ku_6", writer)
    assert third.tagged == 1
    assert repo.load_text_digests(tagger.version)[changed.id] == text_digest(changed.text)
    tags = repo.load_tags(tagger.version)
    assert set(tags) == {it.id for it in items}
    assert third.non_scientific == sum(1 for v in tags.values() if v[0][0] == "ku_6")


def _run_tag(home: Path, monkeypatch: pytest.MonkeyPatch, rows: list[str], out: Path) -> int:
    monkeypatch.setenv("SCICUSTOM_HOME", str(home))
    source = out.with_suffix(".in.jsonl")
    source.write_text("".join(r + "\n" for r in rows), encoding="utf-8")
    return main(["tag", "--input", str(source), "--output", str(out)])


def test_tag_command_appends_units_and_scores(tiny_trained, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                              capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    home, result = tiny_trained
    rows = [json.dumps({"id": "q1", "question": "What is the focal length of a lens?", "answer": "0.5 m"}),
            json.dumps({"id": 2, "question": "Who wrote the Critique of Pure Reason?",
                        "options": ["Kant", "Hume"], "answer": "Kant", "extra": "kept"})]
    out = tmp_path / "out.jsonl"
    assert _run_tag(Path(home), monkeypatch, rows, out) == 0
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    assert [x["id"] for x in lines] == ["q1", 2] and lines[1]["extra"] == "kept"
    names = set(result.artifact.unit_names)
    tagger = OnnxTagger(result.artifact.directory)
    expected = tagger.tag(["What is the focal length of a lens?\nAnswer: 0.5 m",
                           "Who wrote the Critique of Pure Reason?\nAnswer: Kant"])
    for line, tags in zip(lines, expected, strict=True):
        assert 1 <= len(line["predicted_units"]) <= 8 and set(line["predicted_units"]) <= names
        assert line["scores"] == [s.score for s in tags]
        assert line["scores"] == sorted(line["scores"], reverse=True)
    assert "tagged 2 questions" in capsys.readouterr().out


def test_tag_command_names_the_bad_line(tiny_trained, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                        capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    home, _ = tiny_trained
    rows = [json.dumps({"id": "q1", "question": "ok?"}), json.dumps({"id": "q2", "question": "  "})]
    out = tmp_path / "out.jsonl"
    assert _run_tag(Path(home), monkeypatch, rows, out) == 2
    assert "out.in.jsonl:2: needs a non-empty string 'question'" in capsys.readouterr().err
    assert not out.exists()


def test_export_triton_and_serve_flag_checks(tiny_trained, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    home, result = tiny_trained
    monkeypatch.setenv("SCICUSTOM_HOME", str(home))
    out = tmp_path / "repo"
    assert main(["tagger", "export-triton", "--out", str(out), "--max-batch", "32"]) == 0
    assert (out / "tagger_onnx" / "1" / "model.onnx").read_bytes() == result.artifact.model_path.read_bytes()
    assert "max_batch_size: 32" in (out / "tagger" / "config.pbtxt").read_text()
    assert main(["serve", "tagger", "--http-port", "0"]) == 2
    assert "--http-port: 0 is not a port" in capsys.readouterr().err
    capsys.readouterr()
    assert _run_tag(tmp_path / "empty_home", monkeypatch, [json.dumps({"id": "a", "question": "q?"})],
                    tmp_path / "x.jsonl") == 2
    assert "no trained tagger" in capsys.readouterr().err


def test_training_reports_batches_per_member(tmp_path: Path) -> None:
    from scicustom.adapters.tagger_artifact_store import TaggerArtifactStore
    from scicustom.app.tagging.tagger_training import train
    from tests.unit.tagger.tiny_world import TINY_CONFIG, TINY_PLAN, tiny_inputs, tiny_trainer

    reported: dict[str, list[tuple[int, int]]] = {}
    train(tiny_inputs(), tiny_trainer(), TaggerArtifactStore(tmp_path), TINY_PLAN, TINY_CONFIG, make_current=False,
          progress=lambda step, done, total: reported.setdefault(step, []).append((done, total)))
    members = len(TINY_CONFIG.members())
    assert sorted(reported) == [f"train {k}/{members}" for k in range(1, members + 1)]
    for steps in reported.values():
        dones = [d for d, _ in steps]
        assert dones == list(range(1, len(steps) + 1)) and steps[-1][0] == steps[-1][1]
