"""The Tagger port, embedded: the trained tagger's ONNX model run in process by onnxruntime, blended with
its sentence-vector head when the version has one (the caller's vectors, else `embedder`'s)."""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import onnxruntime as ort

from scicustom.adapters.tagger_artifact_store import load_artifact
from scicustom.adapters.wordpiece_tokenizer import WordPieceTokenizer, pad_ids
from scicustom.core.errors import InvalidInput, PreconditionFailed
from scicustom.core.tagger_training.artifact import TaggerArtifact
from scicustom.core.tagger_training.decoding import decode
from scicustom.ports import Embedder, UnitScore
from scicustom.telemetry.metrics import PlatformMetrics, process_metrics


def validate_texts(texts: Sequence[str], field: str = "texts") -> None:
    for i, text in enumerate(texts):
        if not isinstance(text, str):
            raise InvalidInput(f"{field}[{i}]", f"expected a string, got {type(text).__name__}")
        if not text.strip():
            raise InvalidInput(f"{field}[{i}]", "empty text")


def validate_vectors(vectors: np.ndarray, texts: int, dimension: int, field: str = "vectors") -> np.ndarray:
    """`vectors` as float32 [texts, dimension], or InvalidInput naming what is wrong."""
    array = np.asarray(vectors)
    if array.shape != (texts, dimension):
        raise InvalidInput(field, f"expected shape [{texts}, {dimension}] (one sentence vector per text), "
                                  f"got {list(array.shape)}")
    if not np.issubdtype(array.dtype, np.floating) or not np.isfinite(array).all():
        raise InvalidInput(field, "expected finite floating-point values")
    return array.astype(np.float32, copy=False)


class OnnxTagger:
    """Length-sorted batches (little padding); `threads` caps onnxruntime's intra-op pool."""

    def __init__(self, artifact_dir: Path, threads: int | None = None, batch_size: int = 256,
                 metrics: PlatformMetrics | None = None, embedder: Embedder | None = None) -> None:
        self._metrics = metrics or process_metrics()
        self._embedder = embedder
        self.artifact: TaggerArtifact = load_artifact(artifact_dir)
        self.version = self.artifact.version
        self._tokenizer = WordPieceTokenizer(self.artifact.tokenizer_path, self.artifact.max_tokens)
        options = ort.SessionOptions()
        if threads:
            options.intra_op_num_threads = threads
            options.inter_op_num_threads = 1
        self._session = ort.InferenceSession(str(self.artifact.model_path), options,
                                             providers=["CPUExecutionProvider"])
        self._batch_size = batch_size

    def scores(self, texts: Sequence[str], vectors: np.ndarray | None = None) -> np.ndarray:
        """texts x units: the network's probabilities, blended with the head's when there is one."""
        network = self.network_scores(texts)
        head = self.artifact.head
        if head is None:
            return network
        if vectors is None:
            if self._embedder is None:
                raise PreconditionFailed(f"tagger {self.version} reads sentence vectors ({head.embedder}): "
                                         "pass the texts' vectors or give it an embedder")
            vectors = self._embedder.encode(texts)
        return head.blended(network, validate_vectors(vectors, len(texts), head.dimension))

    def network_scores(self, texts: Sequence[str]) -> np.ndarray:
        rows = self._tokenizer.ids(texts)
        out = np.zeros((len(rows), len(self.artifact.unit_ids)), dtype=np.float32)
        order = np.argsort([len(r) for r in rows], kind="stable")
        for start in range(0, len(order), self._batch_size):
            chosen = order[start : start + self._batch_size]
            started = time.perf_counter()
            ids, mask = pad_ids([rows[i] for i in chosen])
            out[chosen] = self._session.run(None, {"input_ids": ids, "attention_mask": mask})[0]
            m = self._metrics
            m.observe(m.tagger_batch, time.perf_counter() - started, "onnx")
            m.tagger_texts.labels("onnx").inc(len(chosen))
        return out

    def tag(self, texts: Sequence[str], vectors: np.ndarray | None = None) -> list[list[UnitScore]]:
        validate_texts(texts)
        if not texts:
            return []
        a = self.artifact
        return decode(self.scores(texts, vectors), a.thresholds, a.unit_ids, a.non_scientific_index, a.max_units)
