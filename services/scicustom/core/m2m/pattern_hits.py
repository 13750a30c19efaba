"""How many regexes of a list match a text, with exact shortcuts for the two pattern shapes of the
vocabulary that dominate the cost on long texts.

- Connector patterns made only of `\\b`, `.*` and literal text (`\\bby\\b.*\\bincreas`) cannot match unless
  every literal piece is a substring: a substring test (fast) skips the regex when one is absent.
- Number-with-unit patterns (`\\d+\\.?\\d*\\s*(units)` optionally followed by `\\b`, `%` or `\\s*(units)`)
  can only match inside a window that starts with a run of digits and dots and extends over the
  whitespace and the next two non-space tokens. The windows of a text, joined by "\\x00" (which none of
  these patterns can match or cross, and which is a non-word character like the whitespace or end that
  follows each window), contain a match exactly when the text does, and are much shorter.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_LITERAL_SHAPE = re.compile(r"(?:\\b|\.\*|[a-z ]+)+")
_LITERAL_SPLIT = re.compile(r"\\b|\.\*")
_NUMBER_PREFIX = r"\d+\.?\d*\s*"
_UNIT_REST = re.compile(r"(?:\([^()\\\s\d]+\)|%)(?:\\b|\\s\*\([^()\\\s\d]+\))?")
_NUMBER_WINDOW = re.compile(r"(\d[\d.]*)(?=(\s*\S*\s*\S*))")


def required_literals(source: str) -> tuple[str, ...] | None:
    if not _LITERAL_SHAPE.fullmatch(source):
        return None
    return tuple(piece for piece in _LITERAL_SPLIT.split(source) if piece)


def is_number_with_unit(source: str) -> bool:
    return source.startswith(_NUMBER_PREFIX) and _UNIT_REST.fullmatch(source[len(_NUMBER_PREFIX):]) is not None


def number_windows(text: str) -> str:
    return "\x00".join(run + rest for run, rest in _NUMBER_WINDOW.findall(text))


class PatternMatcher:
    def __init__(self, patterns: Sequence[re.Pattern[str]]) -> None:
        self.patterns = tuple(patterns)
        self._literals = tuple(required_literals(p.pattern) for p in patterns)
        self._windowed = tuple(is_number_with_unit(p.pattern) and not p.flags & re.DOTALL for p in patterns)

    def count(self, text: str) -> int:
        windows: str | None = None
        hits = 0
        for pattern, literals, windowed in zip(self.patterns, self._literals, self._windowed, strict=True):
            if literals is not None and not all(piece in text for piece in literals):
                continue
            target = text
            if windowed:
                if windows is None:
                    windows = number_windows(text)
                target = windows
            if pattern.search(target) is not None:
                hits += 1
        return hits
