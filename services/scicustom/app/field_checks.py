"""Checks of common request fields, shared by every entry point; each failure is InvalidInput naming
the field (gRPC INVALID_ARGUMENT, CLI exit 2)."""

from __future__ import annotations

from collections.abc import Sequence

from scicustom.core.errors import InvalidInput

MAX_TEXT_CHARS = 8000  # a text to tag or search with: longer than any corpus item


def bounded(value: int, field: str, high: int, default: int) -> int:
    """A count field where 0 means `default`; above `high` is refused."""
    return default if value == 0 else at_most(value, field, high)


def at_most(value: int, field: str, high: int) -> int:
    if value > high:
        raise InvalidInput(field, f"{value} is above the limit {high}")
    return value


def checked_text(text: str, field: str, max_chars: int = MAX_TEXT_CHARS) -> str:
    if not text.strip():
        raise InvalidInput(field, "is empty")
    if len(text) > max_chars:
        raise InvalidInput(field, f"has {len(text)} characters, above the limit {max_chars}")
    return text


def checked_list(values: Sequence[object], field: str, high: int) -> None:
    if not values:
        raise InvalidInput(field, "is empty")
    if len(values) > high:
        raise InvalidInput(field, f"has {len(values)} entries, above the limit {high}")


def checked_seed(value: int, field: str = "seed") -> int:
    """A random seed: numpy's generators take non-negative integers only."""
    if value < 0:
        raise InvalidInput(field, f"must be >= 0, got {value}")
    return value
