"""A trained tagger version as the platform knows it: its units, thresholds, limits, its sentence-vector
head (None for versions trained without one) and records.

The files (model.onnx, tokenizer.json, vector_head.npz, manifest.json) live in `directory`; how they are written and
found is the artifact store's business (adapters/tagger_artifact_store.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from scicustom.core.tagger_training.vector_head import VectorHead
from scicustom.core.units import NON_SCIENTIFIC

MODEL_FILE = "model.onnx"
TOKENIZER_FILE = "tokenizer.json"
MANIFEST_FILE = "manifest.json"
HEAD_FILE = "vector_head.npz"
HEAD_RECORD = "vector_head"  # the manifest key describing the head


@dataclass
class TaggerArtifact:
    version: str
    unit_ids: list[str]
    unit_names: list[str]
    unit_domains: list[str]
    thresholds: np.ndarray
    max_tokens: int
    max_units: int
    directory: Path
    records: dict[str, Any] = field(default_factory=dict)
    head: VectorHead | None = None

    @property
    def model_path(self) -> Path:
        return self.directory / MODEL_FILE

    @property
    def tokenizer_path(self) -> Path:
        return self.directory / TOKENIZER_FILE

    @property
    def non_scientific_index(self) -> int | None:
        return self.unit_names.index(NON_SCIENTIFIC) if NON_SCIENTIFIC in self.unit_names else None

    @property
    def non_scientific_id(self) -> str | None:
        index = self.non_scientific_index
        return self.unit_ids[index] if index is not None else None

    def manifest(self) -> dict[str, Any]:
        return {
            "version": self.version, "max_tokens": self.max_tokens, "max_units": self.max_units,
            "units": [{"id": i, "name": n, "domain": d}
                      for i, n, d in zip(self.unit_ids, self.unit_names, self.unit_domains, strict=True)],
            "thresholds": [round(float(t), 6) for t in self.thresholds],
            **({HEAD_RECORD: self.head.manifest()} if self.head else {}),
            **self.records,
        }
