"""The remote tagger sends texts of similar length together and answers in the caller's order."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from scicustom.adapters.triton_tagger import TritonTagger
from scicustom.ports import UnitScore


class _Recording(TritonTagger):
    """No server: each batch answers one unit per text, named after the text and its vector."""

    def __init__(self, batch_size: int) -> None:
        super().__init__("127.0.0.1:9", protocol="http", batch_size=batch_size)
        self.batches: list[list[str]] = []
        self._accepts_vectors = True

    def _infer(self, texts: list[str], vectors: np.ndarray | None = None) -> list[list[UnitScore]]:
        self.batches.append(texts)
        return [[UnitScore(f"{t}|{'-' if vectors is None else int(v[0])}", 1.0)]
                for t, v in zip(texts, vectors if vectors is not None else [None] * len(texts), strict=True)]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.text(alphabet="abc ", min_size=1, max_size=30).filter(str.strip), max_size=40),
       st.integers(1, 7), st.booleans())
def test_batches_hold_texts_of_similar_length_and_answers_keep_the_callers_order(texts, batch_size, with_vectors):
    tagger = _Recording(batch_size)
    vectors = np.arange(len(texts), dtype=np.float32)[:, None] * np.ones((1, 3), np.float32) if with_vectors else None
    got = tagger.tag(texts, vectors)
    assert [row[0].unit_id for row in got] == [f"{t}|{i if with_vectors else '-'}" for i, t in enumerate(texts)]
    lengths = [len(t) for batch in tagger.batches for t in batch]
    assert lengths == sorted(lengths) and all(len(b) <= batch_size for b in tagger.batches)
