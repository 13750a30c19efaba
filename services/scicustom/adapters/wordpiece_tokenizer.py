"""The MiniLM WordPiece tokenizer (the packaged tokenizer.json, Rust `tokenizers`): texts -> id batches.

Shared by training, the embedded ONNX adapter and the Triton tokenizer step so that every path
feeds the model the same ids.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, nullcontext
from pathlib import Path

import numpy as np
from tokenizers import Tokenizer

MAX_TOKENS = 256
PARALLELISM = "TOKENIZERS_PARALLELISM"  # read by the Rust library on every batch


class WordPieceTokenizer:
    def __init__(self, tokenizer_json: Path, max_tokens: int = MAX_TOKENS) -> None:
        self.path = tokenizer_json
        self.max_tokens = max_tokens
        self._tokenizer = Tokenizer.from_file(str(tokenizer_json))
        self._tokenizer.enable_truncation(max_tokens)
        self._tokenizer.no_padding()
        self.vocab_size = self._tokenizer.get_vocab_size()

    def ids(self, texts: Sequence[str], parallel: bool = False) -> list[list[int]]:
        """`parallel`: on every core, whatever TOKENIZERS_PARALLELISM says (for one large batch)."""
        with _parallelism_on() if parallel else nullcontext():
            return [enc.ids for enc in self._tokenizer.encode_batch(list(texts))]

    def batch(self, texts: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """(input_ids, attention_mask), int64, padded to the longest text of the batch."""
        return pad_ids(self.ids(texts))


@contextmanager
def _parallelism_on() -> Iterator[None]:
    """The library's thread pool for one call. Afterwards parallelism is configured off (or as it was
    set): a process forked later (the tagger's training members) must not use a pool it lacks, and a
    configured value also keeps the library from warning about the fork."""
    before = os.environ.get(PARALLELISM)
    os.environ[PARALLELISM] = "true"
    try:
        yield
    finally:
        os.environ[PARALLELISM] = before if before is not None else "false"


def pad_ids(rows: Sequence[Sequence[int]]) -> tuple[np.ndarray, np.ndarray]:
    width = max((len(r) for r in rows), default=1) or 1
    ids = np.zeros((len(rows), width), dtype=np.int64)
    mask = np.zeros((len(rows), width), dtype=np.int64)
    for i, r in enumerate(rows):
        ids[i, : len(r)] = r
        mask[i, : len(r)] = 1
    return ids, mask
