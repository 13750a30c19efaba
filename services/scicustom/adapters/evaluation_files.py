"""The output folder of `scicustom evaluate`, and the progress store that makes a rerun resume.

    DIR/results.json              per model: accuracy, ci95, n, n_unparsed, tokens, cost
    DIR/ranking.json              models by accuracy (what `scicustom compare` reads)
    DIR/responses/<model>.jsonl   one line per item: what the model said and what was read from it
    DIR/progress/<model>.json     responses so far, with the fingerprint of the model's settings

Every file is written to a temporary file in the same folder and renamed over the old one, so a
kill leaves the previous complete version, never half a file.
"""

from __future__ import annotations

import hashlib
import json
import logging
import re
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from scicustom.core.atomic_files import write_jsonl_atomic, write_text_atomic
from scicustom.core.evaluation.responses import ItemResponse

log = logging.getLogger(__name__)
PROGRESS_VERSION = 1


def model_file_stem(name: str) -> str:
    """A file name for a model name; names that need changing get a hash so two never collide."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "model"
    return safe if safe == name else f"{safe}-{hashlib.sha256(name.encode()).hexdigest()[:8]}"


def _json(document: Any) -> str:
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


class ProgressFiles:
    """The ProgressStore on JSON files, one per model."""

    def __init__(self, directory: Path) -> None:
        self._directory = directory

    def path(self, model: str) -> Path:
        return self._directory / f"{model_file_stem(model)}.json"

    def load(self, model: str, fingerprint: str) -> list[ItemResponse]:
        path = self.path(model)
        if not path.exists():
            return []
        document = json.loads(path.read_text(encoding="utf-8"))
        if document.get("version") != PROGRESS_VERSION or document.get("fingerprint") != fingerprint:
            log.info("%s: settings changed since the saved progress; starting afresh", model)
            return []
        return [ItemResponse.from_record(record) for record in document["responses"]]

    def save(self, model: str, fingerprint: str, responses: Sequence[ItemResponse]) -> None:
        write_text_atomic(self.path(model), json.dumps({
            "version": PROGRESS_VERSION, "model": model, "fingerprint": fingerprint,
            "responses": [r.to_record() for r in responses],
        }, ensure_ascii=False))


class EvaluationFolder:
    """The EvaluationOutputs on one local folder."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.progress = ProgressFiles(directory / "progress")

    def write_responses(self, model: str, responses: Iterable[ItemResponse]) -> Path:
        path = self.directory / "responses" / f"{model_file_stem(model)}.jsonl"
        write_jsonl_atomic(path, (r.to_record() for r in responses))
        return path

    def write_results(self, document: Mapping[str, Any]) -> Path:
        path = self.directory / "results.json"
        write_text_atomic(path, _json(document))
        return path

    def write_ranking(self, document: Mapping[str, Any]) -> Path:
        path = self.directory / "ranking.json"
        write_text_atomic(path, _json(document))
        return path
