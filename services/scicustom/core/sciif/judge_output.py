"""Reading judge replies: pointwise `POINT_i: YES/NO [reason]` lines and `VERDICT: YES/NO`.

Judges decorate their output (markdown bold, "Point 1 -", PASS/FAIL); the parser accepts those
variants and takes the last verdict given for a point, since judges sometimes restate. A reply that
misses any point is malformed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# [ \t] rather than \s: a verdict line never runs into the next line.
_POINT_LINE = re.compile(
    r"^[ \t>*#\-]*\**[ \t]*point[ \t_]*(\d+)[ \t]*(?:\[[^\]\n]*\])?[ \t]*\**[ \t]*[:\-–=][ \t]*\**[ \t]*"
    r"(YES|NO|PASS|FAIL)\b\**[ \t]*(.*)$",
    re.IGNORECASE | re.MULTILINE,
)
_VERDICT_LINE = re.compile(
    r"^[ \t>*#\-]*\**[ \t]*(?:verdict|overall|final verdict)[ \t]*\**[ \t]*[:\-–=][ \t]*\**[ \t]*(YES|NO|PASS|FAIL)\b",
    re.IGNORECASE | re.MULTILINE,
)
_REASON_LINE = re.compile(r"^[ \t>*#\-]*\**[ \t]*(?:overall_)?reason[ \t]*\**[ \t]*:[ \t]*(.*)$",
                          re.IGNORECASE | re.MULTILINE)


@dataclass(frozen=True)
class PointwiseReply:
    verdicts: dict[int, bool]  # point number (1-based) -> YES
    reasons: dict[int, str]
    overall: bool | None

    def complete(self, n_points: int) -> bool:
        return all(i in self.verdicts for i in range(1, n_points + 1))


@dataclass(frozen=True)
class VerdictReply:
    verdict: bool | None
    reason: str


def _is_yes(word: str) -> bool:
    return word.upper() in ("YES", "PASS")


def parse_pointwise(text: str) -> PointwiseReply:
    verdicts: dict[int, bool] = {}
    reasons: dict[int, str] = {}
    for m in _POINT_LINE.finditer(text):
        index = int(m.group(1))
        verdicts[index] = _is_yes(m.group(2))
        reason = m.group(3).strip().strip("*").strip()
        reasons[index] = reason.strip("[]").strip() if reason.startswith("[") else reason
    overall_matches = list(_VERDICT_LINE.finditer(text))
    overall = _is_yes(overall_matches[-1].group(1)) if overall_matches else None
    return PointwiseReply(verdicts=verdicts, reasons=reasons, overall=overall)


def parse_verdict(text: str) -> VerdictReply:
    matches = list(_VERDICT_LINE.finditer(text))
    if matches:
        verdict: bool | None = _is_yes(matches[-1].group(1))
    else:
        # A bare YES/NO line, as older judge prompts asked for.
        bare = re.findall(r"^\s*\**\s*(YES|NO)\s*\**\s*\.?\s*$", text, re.IGNORECASE | re.MULTILINE)
        verdict = _is_yes(bare[0]) if len(set(b.upper() for b in bare)) == 1 else None
    reasons = _REASON_LINE.findall(text)
    return VerdictReply(verdict=verdict, reason=reasons[-1].strip().strip("[]") if reasons else "")
