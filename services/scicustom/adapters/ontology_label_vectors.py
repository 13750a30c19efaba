"""MiniLM vectors of ontology node labels, cached on disk so each label is encoded once.

The cache is one .npz: `keys` ("source<TAB>id<TAB>label") and `vectors` (float32, L2-normalised).
A changed label is a new key, so a re-imported source never reads a stale vector.
"""

from __future__ import annotations

import io
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
from tqdm import tqdm

from scicustom.core.atomic_files import write_bytes_atomic
from scicustom.core.ontology.anchoring import TextEncoder

ENCODE_CHUNK = 4096


def _key(source: str, node_id: str, label: str) -> str:
    return f"{source}\t{node_id}\t{label}"


class LabelVectorCache:
    """The LabelVectors port on one .npz file."""

    def __init__(self, path: Path, encoder: TextEncoder) -> None:
        self.path = path
        self._encoder = encoder
        self._rows: dict[str, int] = {}
        self._vectors = np.zeros((0, 0), dtype=np.float32)
        if path.exists():
            with np.load(path, allow_pickle=False) as data:
                self._vectors = data["vectors"]
                self._rows = {str(k): i for i, k in enumerate(data["keys"])}

    def vectors(self, items: Sequence[tuple[str, str, str]]) -> np.ndarray:
        """Vectors of (source, node_id, label) triples, encoding and saving the missing ones."""
        keys = [_key(*item) for item in items]
        missing = sorted({k for k in keys if k not in self._rows})
        if missing:
            fresh = self._encode([k.split("\t", 2)[2] for k in missing])
            base = len(self._rows)
            self._vectors = fresh if self._vectors.size == 0 else np.vstack([self._vectors, fresh])
            self._rows.update({k: base + i for i, k in enumerate(missing)})
            self._save()
        if not keys:
            return np.zeros((0, self._vectors.shape[1] if self._vectors.size else 0), dtype=np.float32)
        return self._vectors[[self._rows[k] for k in keys]]

    def _encode(self, labels: Sequence[str]) -> np.ndarray:
        # A fresh home encodes ~55k labels (minutes on 2 cores): in chunks, with a bar on a terminal.
        bar = tqdm(total=len(labels), desc="embed ontology labels", unit=" label", leave=False,
                   disable=not sys.stderr.isatty() or len(labels) <= ENCODE_CHUNK)
        blocks = []
        for start in range(0, len(labels), ENCODE_CHUNK):
            blocks.append(self._encoder.encode(labels[start : start + ENCODE_CHUNK]).astype(np.float32))
            bar.update(len(blocks[-1]))
        bar.close()
        return np.vstack(blocks)

    def _save(self) -> None:
        keys = np.array(sorted(self._rows, key=self._rows.__getitem__))
        buffer = io.BytesIO()
        np.savez(buffer, keys=keys, vectors=self._vectors)
        write_bytes_atomic(self.path, buffer.getvalue())
