"""The ontology workspace: the one directory whose files the ontology use cases read and write."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

# The default units with their derived keywords; `tagger train` also reads it from here.
KEYWORDS_FILE = "knowledge_units_with_keywords.json"


@dataclass(frozen=True)
class OntologyWorkspace:
    root: Path

    @property
    def store_path(self) -> Path:
        return self.root / "ontology.sqlite"

    @property
    def import_report(self) -> Path:
        return self.root / "import_report.json"

    @property
    def label_vectors(self) -> Path:
        return self.root / "label_vectors.npz"

    @property
    def keywords_file(self) -> Path:
        return self.root / KEYWORDS_FILE

    @property
    def keywords_coverage(self) -> Path:
        return self.root / "keywords_coverage.json"

    @property
    def judge_agreement(self) -> Path:
        return self.root / "judge_agreement.json"

    @property
    def uploads(self) -> Path:
        return self.root / "uploads"
