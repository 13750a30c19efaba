"""The final answer of a model output and the rule-based correctness check against an item's target.

A target is a number (with unit and tolerance), an expression, or a choice label; an item may have
several (multi-part problems). The rule decides PASS or FAIL only when it can read a committed
value; otherwise the decision goes to the judges.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from scicustom.core.errors import InvalidInput
from scicustom.core.sciif.expressions import align_symbols, expressions_equivalent, parse_expression
from scicustom.core.sciif.quantities import UnitParser, normalise_text, values_agree

Verdict = Literal["pass", "fail", "undecided"]

_FINAL_HEADING = re.compile(
    r"(?im)^[#>*\s\-]*(?:\*\*)?\s*(?:final\s+answers?|answers?|results?|conclusions?)\b[^\n]*"
)


@dataclass(frozen=True)
class Target:
    kind: Literal["number", "expression", "choice"]
    value: float | None = None
    unit: str | None = None  # None: unknown; "dimensionless" / "1": explicitly dimensionless
    rel_tol: float | None = None
    abs_tol: float | None = None
    low: float | None = None
    high: float | None = None
    sig_figs: int = 4
    expression: str | None = None
    choice: str | None = None


@dataclass(frozen=True)
class Candidate:
    """A value the final answer states, converted to the target's unit when it has one."""

    value: float
    literal: str
    unit_text: str | None
    unit: Any


@dataclass(frozen=True)
class RuleOutcome:
    verdict: Verdict
    reason: str


def parse_targets(raw: Any, field: str = "final_answer") -> tuple[Target, ...]:
    """Targets from an item's `final_answer`: one mapping or a list of them."""
    if raw is None:
        return ()
    entries = raw if isinstance(raw, list) else [raw]
    targets = []
    for i, entry in enumerate(entries):
        where = f"{field}[{i}]" if isinstance(raw, list) else field
        if not isinstance(entry, Mapping):
            raise InvalidInput(where, "expected an object with value, expression or choice")
        targets.append(_parse_target(entry, where))
    return tuple(targets)


def _parse_target(entry: Mapping[str, Any], where: str) -> Target:
    def number(key: str) -> float | None:
        value = entry.get(key)
        if value is None:
            return None
        try:
            return float(value)
        except (TypeError, ValueError) as exc:
            raise InvalidInput(f"{where}.{key}", "expected a number") from exc

    sig_figs = int(entry.get("sig_figs", 4))
    if sig_figs < 1:
        raise InvalidInput(f"{where}.sig_figs", "must be at least 1")
    if "value" in entry or "range" in entry:
        low = high = None
        if "range" in entry:
            bounds = entry["range"]
            if not (isinstance(bounds, list) and len(bounds) == 2):
                raise InvalidInput(f"{where}.range", "expected [low, high]")
            low, high = float(bounds[0]), float(bounds[1])
        unit = entry.get("unit")
        return Target(kind="number", value=number("value"), unit=str(unit) if unit is not None else None,
                      rel_tol=number("rel_tol"), abs_tol=number("abs_tol"), low=low, high=high,
                      sig_figs=sig_figs)
    if "expression" in entry:
        return Target(kind="expression", expression=str(entry["expression"]))
    if "choice" in entry:
        choice = str(entry["choice"]).strip().upper()
        if not re.fullmatch(r"[A-Z]", choice):
            raise InvalidInput(f"{where}.choice", "expected one letter")
        return Target(kind="choice", choice=choice)
    raise InvalidInput(where, "needs one of value, range, expression, choice")


def final_section(answer: str) -> str:
    """The part of the answer that states the final result.

    The last \\boxed{...} when there is one; else from the last "Final Answer"/"Answer"/"Result"
    heading on; else the last two non-empty lines.
    """
    boxed = _last_boxed(answer)
    if boxed is not None:
        return boxed
    headings = list(_FINAL_HEADING.finditer(answer))
    if headings:
        return answer[headings[-1].start():][:1200]
    lines = [line for line in answer.splitlines() if line.strip()]
    return "\n".join(lines[-2:])


def _last_boxed(text: str) -> str | None:
    start = text.rfind("\\boxed{")
    if start < 0:
        return None
    depth, i = 0, start + len("\\boxed")
    for j in range(i, len(text)):
        if text[j] == "{":
            depth += 1
        elif text[j] == "}":
            depth -= 1
            if depth == 0:
                return text[i + 1:j]
    return None


class CorrectnessRule:
    """Numeric equivalence (pint units, tolerance or 4 significant figures), sympy expression
    equivalence, and choice matching, applied to the final answer."""

    def __init__(self, units: UnitParser) -> None:
        self._units = units

    def check(self, answer: str, targets: Sequence[Target]) -> RuleOutcome:
        if not targets:
            return RuleOutcome("undecided", "item has no structured final answer")
        section = final_section(answer)
        outcomes = [self._check_one(section, t) for t in targets]
        failed = [o for o in outcomes if o.verdict == "fail"]
        if failed:
            return RuleOutcome("fail", "; ".join(o.reason for o in failed))
        if all(o.verdict == "pass" for o in outcomes):
            return RuleOutcome("pass", "; ".join(o.reason for o in outcomes))
        return RuleOutcome("undecided", "; ".join(o.reason for o in outcomes if o.verdict == "undecided"))

    def _check_one(self, section: str, target: Target) -> RuleOutcome:
        if target.kind == "number":
            return self._check_number(section, target)
        if target.kind == "expression":
            return self._check_expression(section, target)
        return self._check_choice(section, target)

    def target_unit(self, target: Target) -> Any:
        return self._units.parse(target.unit) if target.unit else None

    def candidates(self, section: str, target: Target) -> list[Candidate]:
        """Values in the final section expressed in the target's unit (unitless numbers as is)."""
        target_unit = self.target_unit(target)
        out = []
        for q in self._units.quantities(section):
            value = q.number.value
            if q.unit is not None and target_unit is not None:
                if not self._units.same_dimension(q.unit, target_unit):
                    continue
                value = self._units.convert(value, q.unit, target_unit)
            out.append(Candidate(value, q.number.literal.strip(), q.unit_text, q.unit))
        for a, b in re.findall(r"(?<![\w.])(\d+)\s*/\s*(\d+)(?![\w.])", normalise_text(section)):
            if int(b) != 0:  # a written fraction "3/4" is one value, not two
                out.append(Candidate(int(a) / int(b), f"{a}/{b}", None, None))
        return out

    def _check_number(self, section: str, target: Target) -> RuleOutcome:
        label = _describe(target)
        candidates = self.candidates(section, target)
        if not candidates:
            return RuleOutcome("undecided", f"no value found in the final answer for {label}")
        if any(self._agrees(c.value, target) for c in candidates):
            return RuleOutcome("pass", f"final answer matches {label}")
        # A wrong value counts only when the answer committed to one in the target's dimension.
        target_unit = self.target_unit(target)
        committed = target_unit is None or any(c.unit is not None for c in candidates)
        if not committed:
            return RuleOutcome("undecided", f"no value in the unit of {label} in the final answer")
        stated = ", ".join(c.literal + (f" {c.unit_text}" if c.unit_text else "") for c in candidates[:4])
        return RuleOutcome("fail", f"final answer states {stated}, expected {label}")

    def _agrees(self, value: float, target: Target) -> bool:
        if target.low is not None and target.high is not None:
            return target.low <= value <= target.high
        assert target.value is not None
        return values_agree(value, target.value, sig_figs=target.sig_figs, rel_tol=target.rel_tol,
                            abs_tol=target.abs_tol)

    def _check_expression(self, section: str, target: Target) -> RuleOutcome:
        assert target.expression is not None
        reference = parse_expression(target.expression)
        if reference is None:
            return RuleOutcome("undecided", f"reference expression {target.expression!r} does not parse")
        parsed_any = False
        for candidate_text in _expression_candidates(section):
            candidate = parse_expression(candidate_text)
            if candidate is None:
                continue
            parsed_any = True
            if expressions_equivalent(align_symbols(candidate, reference), reference):
                return RuleOutcome("pass", f"final expression equals {target.expression}")
        if not parsed_any:
            return RuleOutcome("undecided", "no parseable expression in the final answer")
        return RuleOutcome("fail", f"final expression differs from {target.expression}")

    @staticmethod
    def _check_choice(section: str, target: Target) -> RuleOutcome:
        letters = set(re.findall(
            r"(?:\(([A-E])\)|\b(?:option|choice|answer(?: is)?)\s*[:\-]?\s*\(?([A-E])\b"
            r"|^\s*\**([A-E])[.)\s*]*$)",
            section, flags=re.IGNORECASE | re.MULTILINE,
        ))
        chosen = {c.upper() for group in letters for c in group if c}
        if len(chosen) != 1:
            return RuleOutcome("undecided", "no single choice label in the final answer")
        (label,) = chosen
        if label == target.choice:
            return RuleOutcome("pass", f"chose {label}")
        return RuleOutcome("fail", f"chose {label}, expected {target.choice}")


def _expression_candidates(section: str) -> list[str]:
    """Right-hand sides of the equations in the final section, last first, then whole lines."""
    out = []
    for line in reversed([ln for ln in section.splitlines() if ln.strip()]):
        line = re.sub(r"^[#>*\s\-]*(?:\*\*)?\s*(?:final\s+answers?|answers?|results?)\s*:?\s*(?:\*\*)?", "",
                      line, flags=re.IGNORECASE).strip().strip("$").strip()
        line = re.sub(r"\\\[|\\\]|\\\(|\\\)", "", line)
        if "=" in line:
            out.append(line.rsplit("=", 1)[1].strip())
        elif line:
            out.append(line)
    return out


def _describe(target: Target) -> str:
    if target.low is not None and target.high is not None:
        text = f"[{target.low:g}, {target.high:g}]"
    else:
        text = f"{target.value:g}"
    return f"{text} {target.unit}" if target.unit else text
