"""The reasoning steps of a text: the captures of the vocabulary's DOTALL step regex.

For the reference's pattern, `\\[Begin Step \\d+\\](.*?)\\[End Step \\d+\\]`, the same captures are found
with `str.find` on the two markers (3x faster than the lazy regex on long reasoning): a step starts after
the first complete begin marker and ends at the first complete end marker after it, where the regex's
`.*?` stops; the next search starts after that end marker, as `findall`'s does. Without a complete end
marker after a begin marker there is none after any later one either, so no more steps. `\\d` is
`str.isdecimal` (Unicode category Nd, as `re` defines it). Any other pattern runs as a regex.
"""

from __future__ import annotations

import re

MARKED_STEP_PATTERN = r"\[Begin Step \d+\](.*?)\[End Step \d+\]"
_BEGIN = "[Begin Step "
_END = "[End Step "


def split_reasoning(pattern: re.Pattern[str], reasoning: str) -> tuple[list[str], str | None]:
    """The stripped, non-empty steps and, for the marked pattern, the text around them joined by spaces.

    Each step is bounded by a marker's "]" and the next one's "[", so no word run crosses its border,
    and lower-casing (context-sensitive only for a final sigma, which looks past neither character nor
    whitespace) gives the same text inside as in the whole: the word runs of the lower-cased reasoning
    are those of its lower-cased steps and of the lower-cased text around them."""
    if not _is_marked(pattern):
        found = pattern.findall(reasoning)
        around = None
    else:
        spans = marked_spans(reasoning)
        found = [reasoning[start:end] for start, end in spans]
        ends = [0, *(i for span in spans for i in span), len(reasoning)]
        around = " ".join(reasoning[ends[k]:ends[k + 1]] for k in range(0, len(ends), 2))
    steps = (s.strip() for s in found)
    return [s for s in steps if s], around


def _is_marked(pattern: re.Pattern[str]) -> bool:
    return pattern.pattern == MARKED_STEP_PATTERN and pattern.flags == re.DOTALL | re.UNICODE


def marked_spans(text: str) -> list[tuple[int, int]]:
    """Where the captures of `re.findall(MARKED_STEP_PATTERN, text, re.DOTALL)` are."""
    spans = []
    position = 0
    while (begin := text.find(_BEGIN, position)) >= 0:
        start = _after_marker(text, begin + len(_BEGIN))
        if start < 0:  # no digits and "]": the regex tries the next begin marker
            position = begin + 1
            continue
        end = text.find(_END, start)
        while end >= 0 and (stop := _after_marker(text, end + len(_END))) < 0:
            end = text.find(_END, end + 1)
        if end < 0:
            break
        spans.append((start, end))
        position = stop
    return spans


def _after_marker(text: str, digits: int) -> int:
    """The index after `\\d+\\]` at `digits`, or -1."""
    end = digits
    while end < len(text) and text[end].isdecimal():
        end += 1
    return end + 1 if digits < end < len(text) and text[end] == "]" else -1
