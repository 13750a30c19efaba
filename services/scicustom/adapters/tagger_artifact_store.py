"""The persisted tagger: a folder per version under <home>/models/tagger/, and a `current.json` pointer.

  <version>/model.onnx       ids + mask -> per-unit probabilities
  <version>/tokenizer.json   the WordPiece tokenizer the ids come from
  <version>/vector_head.npz  the head on sentence vectors blended into the scores (when trained with one)
  <version>/manifest.json    version, unit columns (id, name, domain), thresholds, limits, training
                             and evaluation records
A version is written to a temporary folder and renamed, so a reader never sees half a model.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np

from scicustom.core.atomic_files import write_text_atomic
from scicustom.core.errors import PreconditionFailed
from scicustom.core.tagger_training.artifact import (
    HEAD_FILE,
    HEAD_RECORD,
    MANIFEST_FILE,
    MODEL_FILE,
    TOKENIZER_FILE,
    TaggerArtifact,
)
from scicustom.core.tagger_training.vector_head import VectorHead
from scicustom.ports import Embedder, Tagger

CURRENT_FILE = "current.json"


def tagger_root(home: Path) -> Path:
    return home / "models" / "tagger"


def version_of(onnx_bytes: bytes, unit_ids: list[str], thresholds: np.ndarray, tokenizer_json: bytes,
               head_fingerprint: bytes = b"") -> str:
    digest = hashlib.sha256(onnx_bytes)
    digest.update("\n".join(unit_ids).encode())
    digest.update(np.round(thresholds.astype(np.float64), 6).tobytes())
    digest.update(tokenizer_json)
    digest.update(head_fingerprint)  # empty without a head: older versions keep their names
    return f"trained-{digest.hexdigest()[:12]}"


def _manifest_text(artifact: TaggerArtifact) -> str:
    return json.dumps(artifact.manifest(), indent=1)


def save_artifact(root: Path, onnx_bytes: bytes, tokenizer_json: bytes, unit_ids: list[str], unit_names: list[str],
                  unit_domains: list[str], thresholds: np.ndarray, max_tokens: int, max_units: int,
                  records: dict[str, Any], make_current: bool = True, head: VectorHead | None = None) -> TaggerArtifact:
    version = version_of(onnx_bytes, unit_ids, thresholds, tokenizer_json, head.fingerprint() if head else b"")
    final = root / version
    artifact = TaggerArtifact(version, unit_ids, unit_names, unit_domains, thresholds, max_tokens, max_units,
                              final, records, head)
    if not final.exists():
        tmp = root / f".{version}.partial"
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
        (tmp / MODEL_FILE).write_bytes(onnx_bytes)
        (tmp / TOKENIZER_FILE).write_bytes(tokenizer_json)
        if head:
            (tmp / HEAD_FILE).write_bytes(head.to_bytes())
        (tmp / MANIFEST_FILE).write_text(_manifest_text(artifact), encoding="utf-8")
        tmp.rename(final)
    else:
        # Same model and thresholds: keep the files, refresh the records (e.g. a new evaluation).
        write_manifest(artifact)
    if make_current:
        set_current(root, version)
    return artifact


def write_manifest(artifact: TaggerArtifact) -> None:
    write_text_atomic(artifact.directory / MANIFEST_FILE, _manifest_text(artifact))


def set_current(root: Path, version: str) -> None:
    write_text_atomic(root / CURRENT_FILE, json.dumps({"version": version}))


def load_artifact(directory: Path) -> TaggerArtifact:
    try:
        data = json.loads((directory / MANIFEST_FILE).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise PreconditionFailed(f"no trained tagger in {directory}; run `scicustom tagger train`") from None
    units = data["units"]
    records = {k: v for k, v in data.items()
               if k not in {"version", "max_tokens", "max_units", "units", "thresholds", HEAD_RECORD}}
    head = VectorHead.from_bytes((directory / HEAD_FILE).read_bytes()) if HEAD_RECORD in data else None
    return TaggerArtifact(
        version=data["version"], unit_ids=[u["id"] for u in units], unit_names=[u["name"] for u in units],
        unit_domains=[u["domain"] for u in units], thresholds=np.asarray(data["thresholds"], dtype=np.float32),
        max_tokens=int(data["max_tokens"]), max_units=int(data["max_units"]), directory=directory, records=records,
        head=head,
    )


def version_dir(root: Path, version: str | None = None) -> Path:
    """The folder of `version` under `root`; None: the current one."""
    if version is None:
        pointer = root / CURRENT_FILE
        if not pointer.exists():
            raise PreconditionFailed(f"no trained tagger under {root}; run `scicustom tagger train`")
        version = str(json.loads(pointer.read_text(encoding="utf-8"))["version"])
    return root / version


def current_artifact_dir(home: Path, version: str | None = None) -> Path:
    return version_dir(tagger_root(home), version)


class TaggerArtifactStore:
    """The TaggerArtifacts port on the local filesystem: versions under `root` (`<home>/models/tagger/`)."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def save(self, onnx_model: bytes, tokenizer_json: bytes, unit_ids: list[str], unit_names: list[str],
             unit_domains: list[str], thresholds: np.ndarray, max_tokens: int, max_units: int,
             records: dict[str, Any], make_current: bool = True, head: VectorHead | None = None) -> TaggerArtifact:
        return save_artifact(self.root, onnx_model, tokenizer_json, unit_ids, unit_names, unit_domains, thresholds,
                             max_tokens, max_units, records, make_current=make_current, head=head)

    def save_records(self, artifact: TaggerArtifact) -> None:
        write_manifest(artifact)

    def directory(self, version: str | None = None) -> Path:
        return version_dir(self.root, version)

    def load(self, version: str | None = None) -> TaggerArtifact:
        return load_artifact(self.directory(version))

    def tagger(self, artifact: TaggerArtifact, threads: int | None = None,
               embedder: Embedder | None = None) -> Tagger:
        from scicustom.adapters.onnx_tagger import OnnxTagger

        return OnnxTagger(artifact.directory, threads=threads, embedder=embedder)
