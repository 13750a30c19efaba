"""The trainer tokenises each distinct text once, on every core: the same ids as one serial batch, and
the library's parallelism is left configured (off unless it was set), so the training members forked
afterwards neither use a thread pool they lack nor warn about it."""

from __future__ import annotations

import os

import pytest

from scicustom.adapters.packaged_models import minilm_path
from scicustom.adapters.torch_tagger_trainer import distinct_ids
from scicustom.adapters.wordpiece_tokenizer import PARALLELISM, WordPieceTokenizer

TEXTS = ["Which enzyme unwinds DNA at the replication fork?", "Helicase", "", "Which enzyme unwinds DNA at the "
         "replication fork?", "Ohm's law relates voltage, current and résistance.", "Helicase"]


@pytest.mark.parametrize("before", [None, "false", "true"])
def test_distinct_texts_give_the_serial_ids_and_parallelism_stays_configured(
        monkeypatch: pytest.MonkeyPatch, before: str | None) -> None:
    if before is None:
        monkeypatch.delenv(PARALLELISM, raising=False)
    else:
        monkeypatch.setenv(PARALLELISM, before)
    tokenizer = WordPieceTokenizer(minilm_path() / "tokenizer.json")
    serial = tokenizer.ids(TEXTS)
    assert distinct_ids(tokenizer, TEXTS) == serial
    assert os.environ[PARALLELISM] == (before or "false")
    assert serial[0] == serial[3] and serial[1] == serial[5] and serial[0] != serial[1]
