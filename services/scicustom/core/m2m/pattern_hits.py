"""How many regexes of a list match a text, with exact shortcuts for the two pattern shapes of the
vocabulary that dominate the cost on long texts.

- Connector patterns made only of `\\b`, `.*` and literal text (`\\bby\\b.*\\bincreas`) cannot match unless
  every literal piece is a substring: a substring test (fast) skips the regex when one is absent.
- Number-with-unit patterns (`\\d+\\.?\\d*\\s*(units)` optionally followed by `\\b`, `%` or `\\s*(units)`)
  can only match where a run of digits and dots is followed by whitespace and a unit within the next
  two tokens. The number part can end only where the run ends, which it can when at most one dot
  follows the run's last digit; what must follow is then the pattern's `\\s*` and unit part, matched at
  the start of the two tokens after the run. Those recur (" °c and", " v vs"), so each distinct one is
  tested once per matcher.
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


class PatternMatcher:
    def __init__(self, patterns: Sequence[re.Pattern[str]]) -> None:
        self.patterns = tuple(patterns)
        self._literals = tuple(required_literals(p.pattern) for p in patterns)
        self._windowed = tuple(is_number_with_unit(p.pattern) and not p.flags & re.DOTALL for p in patterns)
        # What a windowed pattern needs after its number: `\s*` and the unit part, anchored.
        self._units = tuple(re.compile(p.pattern[len(_NUMBER_PREFIX) - 3:], p.flags) if windowed else None
                            for p, windowed in zip(patterns, self._windowed, strict=True))
        self._unit_hits: dict[str, int] = {}

    def count(self, text: str) -> int:
        windowed_hits = 0
        if any(self._windowed):
            for run, rest in _NUMBER_WINDOW.findall(text):
                # A number part `\d+\.?\d*` can end where the run of digits and dots ends (the unit or
                # space that must follow is neither) exactly when at most one dot follows its last digit.
                if len(run) - len(run.rstrip(".")) <= 1:
                    windowed_hits |= self._hits_after_number(rest)
        hits = windowed_hits.bit_count()
        for pattern, literals, windowed in zip(self.patterns, self._literals, self._windowed, strict=True):
            if windowed or (literals is not None and not all(piece in text for piece in literals)):
                continue
            if pattern.search(text) is not None:
                hits += 1
        return hits

    def _hits_after_number(self, rest: str) -> int:
        """Bit k set when windowed pattern k's `\\s*` and unit part match at the start of `rest` (the
        whitespace and two tokens after a run of digits). What follows `rest` in the text is whitespace
        or the end, both non-word like the end of `rest`. The same rests (" °c and", " v vs") recur, so
        each distinct one is tested once per matcher."""
        found = self._unit_hits.get(rest)
        if found is None:
            found = 0
            for k, unit in enumerate(self._units):
                if unit is not None and unit.match(rest) is not None:
                    found |= 1 << k
            self._unit_hits[rest] = found
        return found
