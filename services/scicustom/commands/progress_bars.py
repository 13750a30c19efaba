"""Progress on stderr for the steps of a command that take more than a few seconds.

Bars appear only on a terminal: logs, pipes and CI output stay clean, and `--json` output on stdout
is never interleaved with them.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Mapping, Sequence
from types import TracebackType
from typing import Any

from tqdm import tqdm

from scicustom.ports import LLM, Completion


class ProgressBars:
    """A `Progress` (core/progress.py): one bar per step name."""

    def __init__(self, unit: str = "step") -> None:
        self._unit = f" {unit}"
        self._bars: dict[str, tqdm] = {}  # type: ignore[type-arg]
        self._enabled = sys.stderr.isatty()

    def __call__(self, step: str, done: int, total: int) -> None:
        if not self._enabled:
            return
        bar = self._bars.get(step)
        if bar is None:
            bar = self._bars[step] = tqdm(total=total, desc=f"{step:<7}", unit=self._unit, leave=False)
        bar.total = max(total, 1)
        bar.n = done
        bar.refresh()

    def close(self) -> None:
        for bar in self._bars.values():
            bar.close()

    def __enter__(self) -> ProgressBars:
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.close()


class CountedLLM:
    """The LLM port, counting finished calls on a bar: the suites cannot say ahead how many they make
    (judges, retries, generation), so the bar shows calls done and their rate."""

    def __init__(self, inner: LLM, step: str = "LLM calls") -> None:
        self._inner = inner
        self._lock = threading.Lock()
        self._bar = tqdm(desc=step, unit=" call", leave=False, disable=not sys.stderr.isatty())

    def complete(self, model: str, messages: Sequence[Mapping[str, str]], **params: Any) -> Completion:
        completion = self._inner.complete(model, messages, **params)
        with self._lock:
            self._bar.update(1)
        return completion
