"""How a long step reports how far it is, without knowing who shows it (a terminal bar, nothing)."""

from __future__ import annotations

from collections.abc import Callable

Progress = Callable[[str, int, int], None]  # step, units done, units in all


def no_progress(step: str, done: int, total: int) -> None:
    """A `Progress` for callers that show none (services, workers, tests)."""
