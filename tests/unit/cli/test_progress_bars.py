"""Progress on stderr: bars only on a terminal; the counted LLM passes every call through."""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from scicustom.commands.progress_bars import CountedLLM, ProgressBars
from scicustom.ports import Completion


class _EchoLLM:
    def complete(self, model: str, messages: Sequence[Mapping[str, str]], **params: Any) -> Completion:
        return Completion(text=messages[-1]["content"], model=model)


def test_counted_llm_passes_calls_through_and_counts_them_across_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    llm = CountedLLM(_EchoLLM())
    with ThreadPoolExecutor(4) as pool:
        texts = list(pool.map(lambda k: llm.complete("m", [{"role": "user", "content": str(k)}]).text, range(50)))
    assert texts == [str(k) for k in range(50)]
    assert llm._bar.n == 50


def test_no_bars_when_stderr_is_not_a_terminal(capsys: pytest.CaptureFixture[str]) -> None:
    with ProgressBars() as bars:
        bars("retag", 5, 10)
    assert capsys.readouterr().err == ""


def test_bars_on_a_terminal(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    with ProgressBars("item") as bars:
        bars("retag", 5, 10)
    assert "retag" in capsys.readouterr().err
