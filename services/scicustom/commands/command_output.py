"""What a command prints on success: lines for people, or with the global `--json` one JSON
document on stdout for scripts (progress bars and warnings stay on stderr either way)."""

from __future__ import annotations

import argparse
import dataclasses
import json
from collections.abc import Callable
from typing import Any


def _plain(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    raise TypeError(type(value).__name__)


def as_json(value: Any) -> str:
    """Dataclasses become objects; paths and other scalars their text."""
    return json.dumps(value, sort_keys=True, ensure_ascii=False,
                      default=lambda v: _plain(v) if dataclasses.is_dataclass(v) else str(v))


def emit(args: argparse.Namespace, result: Any, text: Callable[[], str]) -> None:
    print(as_json(result) if getattr(args, "json", False) else text())
