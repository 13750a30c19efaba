"""The persisted tagger: a folder per version under <home>/models/tagger/, and a `current.json` pointer.

  <version>/model.onnx       ids + mask -> per-unit probabilities
  <version>/tokenizer.json   the WordPiece tokenizer the ids come from
  <version>/manifest.json    version, unit columns (id, name, domain), thresholds, limits, training
                             and evaluation records
A version is written to a temporary folder and renamed, so a reader never sees half a model.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from scicustom.core.errors import PreconditionFailed
from scicustom.core.units import NON_SCIENTIFIC

MODEL_FILE = "model.onnx"
TOKENIZER_FILE = "tokenizer.json"
MANIFEST_FILE = "manifest.json"
CURRENT_FILE = "current.json"


def tagger_root(home: Path) -> Path:
    return home / "models" / "tagger"


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

    @property
    def model_path(self) -> Path:
        return self.directory / MODEL_FILE

    @property
    def tokenizer_path(self) -> Path:
        return self.directory / TOKENIZER_FILE

    @property
    def non_scientific_index(self) -> int | None:
        return self.unit_names.index(NON_SCIENTIFIC) if NON_SCIENTIFIC in self.unit_names else None

    def manifest(self) -> dict[str, Any]:
        return {
            "version": self.version, "max_tokens": self.max_tokens, "max_units": self.max_units,
            "units": [{"id": i, "name": n, "domain": d}
                      for i, n, d in zip(self.unit_ids, self.unit_names, self.unit_domains, strict=True)],
            "thresholds": [round(float(t), 6) for t in self.thresholds],
            **self.records,
        }


def version_of(onnx_bytes: bytes, unit_ids: list[str], thresholds: np.ndarray, tokenizer_json: bytes) -> str:
    digest = hashlib.sha256(onnx_bytes)
    digest.update("\n".join(unit_ids).encode())
    digest.update(np.round(thresholds.astype(np.float64), 6).tobytes())
    digest.update(tokenizer_json)
    return f"trained-{digest.hexdigest()[:12]}"


def save_artifact(root: Path, onnx_bytes: bytes, tokenizer_json: Path, unit_ids: list[str], unit_names: list[str],
                  unit_domains: list[str], thresholds: np.ndarray, max_tokens: int, max_units: int,
                  records: dict[str, Any], make_current: bool = True) -> TaggerArtifact:
    version = version_of(onnx_bytes, unit_ids, thresholds, tokenizer_json.read_bytes())
    final = root / version
    artifact = TaggerArtifact(version, unit_ids, unit_names, unit_domains, thresholds, max_tokens, max_units,
                              final, records)
    if not final.exists():
        tmp = root / f".{version}.partial"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        (tmp / MODEL_FILE).write_bytes(onnx_bytes)
        shutil.copyfile(tokenizer_json, tmp / TOKENIZER_FILE)
        (tmp / MANIFEST_FILE).write_text(json.dumps(artifact.manifest(), indent=1), encoding="utf-8")
        tmp.rename(final)
    else:
        # Same model and thresholds: keep the files, refresh the records (e.g. a new evaluation).
        write_manifest(artifact)
    if make_current:
        set_current(root, version)
    return artifact


def write_manifest(artifact: TaggerArtifact) -> None:
    path = artifact.directory / MANIFEST_FILE
    tmp = path.with_suffix(".partial")
    tmp.write_text(json.dumps(artifact.manifest(), indent=1), encoding="utf-8")
    tmp.replace(path)


def set_current(root: Path, version: str) -> None:
    tmp = root / f".{CURRENT_FILE}.partial"
    tmp.write_text(json.dumps({"version": version}), encoding="utf-8")
    tmp.replace(root / CURRENT_FILE)


def load_artifact(directory: Path) -> TaggerArtifact:
    try:
        data = json.loads((directory / MANIFEST_FILE).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise PreconditionFailed(f"no trained tagger in {directory}; run `scicustom tagger train`") from None
    units = data["units"]
    records = {k: v for k, v in data.items()
               if k not in {"version", "max_tokens", "max_units", "units", "thresholds"}}
    return TaggerArtifact(
        version=data["version"], unit_ids=[u["id"] for u in units], unit_names=[u["name"] for u in units],
        unit_domains=[u["domain"] for u in units], thresholds=np.asarray(data["thresholds"], dtype=np.float32),
        max_tokens=int(data["max_tokens"]), max_units=int(data["max_units"]), directory=directory, records=records,
    )


def current_artifact_dir(home: Path, version: str | None = None) -> Path:
    root = tagger_root(home)
    if version is None:
        pointer = root / CURRENT_FILE
        if not pointer.exists():
            raise PreconditionFailed(f"no trained tagger under {root}; run `scicustom tagger train`")
        version = str(json.loads(pointer.read_text(encoding="utf-8"))["version"])
    return root / version
