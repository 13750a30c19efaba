"""`scicustom tag --input IN.jsonl --output OUT.jsonl`: tag questions with the trained or zero-shot tagger.

Each input row has `id` and `question` (and optional `options`, `answer`); each output row is the
input plus `predicted_units` (unit names, best first) and `scores` (aligned). The text tagged is the
question, plus "Answer: ..." when there is an answer, as corpus items are tagged.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scicustom.app.tagging.corpus_tagging import zero_shot_threshold
from scicustom.core.atomic_files import write_jsonl_atomic
from scicustom.core.errors import InvalidInput, PreconditionFailed
from scicustom.core.jsonl import read_jsonl
from scicustom.core.units import UnitCatalog
from scicustom.core.zero_shot_tagger import ZeroShotParams, ZeroShotTagger
from scicustom.ports import Embedder, ObjectStore, Tagger, TaggerArtifacts

Row = tuple[str, dict[str, Any]]  # (where the row came from, for errors; the row)


@dataclass(frozen=True)
class TaggerChoice:
    tagger: Tagger
    unit_names: Mapping[str, str]  # unit id -> name, for the output rows


@dataclass(frozen=True)
class TaggedRows:
    tagger_version: str
    rows: list[dict[str, Any]]


def item_text(where: str, row: Mapping[str, Any]) -> str:
    if not isinstance(row.get("id"), str | int) or str(row.get("id")).strip() == "":
        raise InvalidInput(where, "needs a non-empty 'id'")
    question = row.get("question")
    if not isinstance(question, str) or not question.strip():
        raise InvalidInput(where, "needs a non-empty string 'question'")
    options = row.get("options")
    if options is not None and not (isinstance(options, list) and all(isinstance(o, str) for o in options)):
        raise InvalidInput(where, "'options' must be a list of strings")
    answer = row.get("answer")
    if answer is not None and not isinstance(answer, str):
        raise InvalidInput(where, "'answer' must be a string")
    return f"{question.strip()}\nAnswer: {answer.strip()}" if answer and answer.strip() else question.strip()


def zero_shot_choice(store: ObjectStore, embedder: Embedder, catalog: UnitCatalog) -> TaggerChoice:
    """The zero-shot baseline at the threshold `corpus tag` calibrated."""
    try:
        threshold = zero_shot_threshold(store)
    except PreconditionFailed as exc:
        raise InvalidInput("--tagger", str(exc)) from None
    return TaggerChoice(ZeroShotTagger(embedder, catalog, ZeroShotParams(threshold=threshold)),
                        {u.id: u.name for u in catalog.units})


def trained_choice(artifacts: TaggerArtifacts, version: str | None, embedder: Embedder,
                   remote: Callable[[], Tagger] | None = None) -> TaggerChoice:
    """A trained version (default: the current one), in process (its head reading `embedder`'s vectors)
    or behind `remote` (its model server)."""
    artifact = artifacts.load(version)
    names = dict(zip(artifact.unit_ids, artifact.unit_names, strict=True))
    return TaggerChoice(remote() if remote else artifacts.tagger(artifact, embedder=embedder), names)


def tag_rows(rows: Sequence[Row], choose: Callable[[], TaggerChoice]) -> TaggedRows:
    """Every row checked first (InvalidInput names its line); the tagger is chosen only then."""
    texts = [item_text(where, row) for where, row in rows]
    choice = choose()
    tags = choice.tagger.tag(texts) if texts else []
    out = [{**row, "predicted_units": [choice.unit_names.get(s.unit_id, s.unit_id) for s in assigned],
            "scores": [s.score for s in assigned]} for (_, row), assigned in zip(rows, tags, strict=True)]
    return TaggedRows(choice.tagger.version, out)


def tag_file(input_path: Path, output_path: Path, choose: Callable[[], TaggerChoice]) -> TaggedRows:
    """`scicustom tag`: the rows of `input_path` tagged into `output_path` (written whole, atomically,
    only when every row is good)."""
    tagged = tag_rows(read_jsonl(input_path, "--input"), choose)
    write_jsonl_atomic(output_path, tagged.rows)
    return tagged
