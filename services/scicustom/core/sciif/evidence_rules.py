"""The rule-based verifier: deterministic checks of evidence points, run before any judge.

A rule never awards a point: it decides FAIL when evidence is mechanically missing (no statement of
the required kind, too few numeric anchors) or mechanically wrong (a false arithmetic or unit
equation, a symbol whose unit changes dimension, a physical constant with a wrong value), and
otherwise leaves the point to the judges. "Missing evidence is always FAIL" (SciIF Table 3).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from scicustom.core.sciif.catalog import EvidencePoint, RuleSpec
from scicustom.core.sciif.expressions import evaluate_arithmetic
from scicustom.core.sciif.final_answer import CorrectnessRule, Target, final_section
from scicustom.core.sciif.quantities import (
    NUMBER_RE,
    Quantity,
    UnitParser,
    literal_ulp,
    normalise_text,
    parse_number_match,
    values_agree,
)


@dataclass(frozen=True)
class RuleFailure:
    rule: str
    reason: str


@dataclass(frozen=True)
class KnownConstant:
    """A physical constant the rules check. Ambiguous symbols (R is also a radius, h a height) are
    checked only when a sentence names the constant."""

    pint_name: str
    symbol: str  # regex for the symbol as written
    keyword: str | None  # regex that must occur in the same sentence; None: the symbol is unambiguous
    rel_slack: float = 0.0  # accepted deviation beyond the literal's precision (local g varies)


CONSTANTS: tuple[KnownConstant, ...] = (
    KnownConstant("avogadro_constant", r"N_?\{?A\}?|N_?\{?\\mathrm\{A\}\}?", None),
    KnownConstant("boltzmann_constant", r"k_?\{?B\}?|k_?\{?\\mathrm\{B\}\}?", None),
    KnownConstant("vacuum_permittivity", r"(?:ε|ϵ|\\epsilon|\\varepsilon|epsilon)_?\{?0\}?|ε₀", None),
    KnownConstant("vacuum_permeability", r"(?:μ|µ|\\mu|mu)_?\{?0\}?|μ₀|µ₀", None),
    KnownConstant("reduced_planck_constant", r"ħ|\\hbar|hbar", None),
    KnownConstant("molar_gas_constant", r"R", r"gas constant"),
    KnownConstant("planck_constant", r"h", r"planck"),
    KnownConstant("speed_of_light", r"c_?0?", r"light"),
    KnownConstant("elementary_charge", r"e",
                  r"elementary charge|electron charge|charge of (?:an|the) electron"),
    KnownConstant("gravitational_constant", r"G", r"gravitational constant|newton'?s constant"),
    KnownConstant("faraday_constant", r"F", r"faraday"),
    KnownConstant("standard_gravity", r"g", r"gravit|free[- ]fall", rel_slack=0.005),
)

_NUMBER = NUMBER_RE.pattern
_SENTENCE_SPLIT = re.compile(r"(?<=[.!?;])\s+|\n+")
_STATED_BEFORE = re.compile(r"(?:[=≈:]|\bis|\bof|\bbe|^)[\s$*(\\]*$")
_NUMERIC_ANCHOR = re.compile(r"[=≈]\s*[-+−]?\(?\s*(?:\d|\.\d)")
_BRACKET = r"\[[^\[\]\n]{1,40}\](?:\s*\^\s*\{?-?\d+\}?)?"
_UNIT_EQUATION = re.compile(rf"((?:{_BRACKET}\s*(?:[·⋅×*/]\s*)?){{1,6}})=\s*({_BRACKET})")
_SYMBOL_BRACKET_UNIT = re.compile(r"(?<![\w\\])([A-Za-zΑ-Ωα-ωµ][A-Za-z0-9_{}]{0,10})\[([^\[\]\n]{1,25})\]")
_SYMBOL_VALUE_UNIT = re.compile(rf"(?<![\w\\])([A-Za-zΑ-Ωα-ωµ][A-Za-z0-9_{{}}]{{0,10}})\s*=\s*({_NUMBER})")


@dataclass
class AnswerView:
    """One model answer with the facts the rules need, computed once and shared across points."""

    text: str
    targets: Sequence[Target]
    units: UnitParser

    @cached_property
    def normalised(self) -> str:
        return normalise_text(self.text)

    @cached_property
    def sentences(self) -> list[str]:
        return [s for s in _SENTENCE_SPLIT.split(self.normalised) if s.strip()]

    @cached_property
    def final(self) -> str:
        return final_section(self.normalised)

    @cached_property
    def stated_values(self) -> list[Quantity]:
        """Numbers of the final section stated as a value: after "=", "≈", ":", "is", or on their own."""
        out = []
        for q in self.units.quantities(self.final):
            before = self.final[max(0, q.number.start - 20):q.number.start]
            if _STATED_BEFORE.search(before):
                out.append(q)
        return out

    @cached_property
    def numeric_anchor_count(self) -> int:
        return len(_NUMERIC_ANCHOR.findall(self.normalised))


class RuleVerifier:
    def __init__(self, units: UnitParser, *, use_evidence_patterns: bool = True) -> None:
        self._units = units
        self._correctness = CorrectnessRule(units)
        self._use_patterns = use_evidence_patterns
        self._checks: dict[str, Callable[[RuleSpec, AnswerView], RuleFailure | None]] = {
            "evidence_pattern": self._evidence_pattern,
            "final_answer_unit": self._final_answer_unit,
            "dimensionless_target": self._dimensionless_target,
            "unit_claims": self._unit_claims,
            "symbol_unit_drift": self._symbol_unit_drift,
            "constant_values": self._constant_values,
            "arithmetic_claims": self._arithmetic_claims,
            "numeric_anchors": self._numeric_anchors,
        }

    @property
    def units(self) -> UnitParser:
        return self._units

    def view(self, answer: str, targets: Sequence[Target] = ()) -> AnswerView:
        return AnswerView(text=answer, targets=targets, units=self._units)

    def check_point(self, point: EvidencePoint, view: AnswerView) -> RuleFailure | None:
        """The first rule of the point that fails, or None when no rule decides it."""
        for spec in point.rules:
            failure = self._checks[spec.kind](spec, view)
            if failure is not None:
                return failure
        return None

    def _evidence_pattern(self, spec: RuleSpec, view: AnswerView) -> RuleFailure | None:
        if not self._use_patterns:
            return None
        if any(re.search(p, view.normalised, flags=re.IGNORECASE) for p in spec.patterns):
            return None
        return RuleFailure("evidence_pattern", "missing evidence: no statement of the required kind")

    def _numeric_anchors(self, spec: RuleSpec, view: AnswerView) -> RuleFailure | None:
        if view.numeric_anchor_count >= spec.min_count:
            return None
        return RuleFailure("numeric_anchors", f"missing evidence: {view.numeric_anchor_count} equation(s) "
                                              f"with numeric values, at least {spec.min_count} required")

    def _final_answer_unit(self, spec: RuleSpec, view: AnswerView) -> RuleFailure | None:
        for target in view.targets:
            unit = self._correctness.target_unit(target) if target.kind == "number" else None
            if unit is None or self._units.is_dimensionless(unit):
                continue
            quantities = view.stated_values
            if not quantities:
                continue  # a symbolic final answer ("B = μ0 I/(2r)"): the judges decide
            if not any(q.unit is not None and self._units.same_dimension(q.unit, unit) for q in quantities):
                return RuleFailure("final_answer_unit", "final answer gives no value in a unit of the "
                                                        f"target's dimension ({target.unit})")
        return None

    def _dimensionless_target(self, spec: RuleSpec, view: AnswerView) -> RuleFailure | None:
        for target in view.targets:
            if target.kind != "number" or target.unit is None:
                continue
            unit = self._correctness.target_unit(target)
            if unit is None or not self._units.is_dimensionless(unit):
                continue
            for q in self._units.quantities(view.final):
                if q.unit is None or self._units.is_dimensionless(q.unit):
                    continue
                if target.value is not None and values_agree(q.number.value, target.value,
                                                             sig_figs=target.sig_figs):
                    return RuleFailure("dimensionless_target",
                                       f"dimensionless result given the unit {q.unit_text!r}")
        return None

    def _unit_claims(self, spec: RuleSpec, view: AnswerView) -> RuleFailure | None:
        for m in _UNIT_EQUATION.finditer(view.normalised):
            left, right = self._bracket_product(m.group(1)), self._bracket_product(m.group(2))
            if left is None or right is None:
                continue
            if left.dimensionality != right.dimensionality:
                claim = " ".join(m.group(0).split())
                return RuleFailure("unit_claims", f"unit check {claim!r} is dimensionally false")
        return None

    def _bracket_product(self, text: str) -> Any:
        """Units of "[N·m^2/C^2][C·m]/[m^3]": each bracket's unit (or the unit in its parentheses)."""
        total = self._units.registry.dimensionless
        dividing = False
        for m in re.finditer(r"(/)?\s*\[([^\[\]]+)\](?:\s*\^\s*\{?(-?\d+)\}?)?", text):
            content = m.group(2)
            inner = re.search(r"\(([^()]+)\)\s*$", content)
            unit = self._units.parse(inner.group(1) if inner else content)
            if unit is None:
                return None
            if m.group(3):
                unit = unit ** int(m.group(3))
            dividing = bool(m.group(1))
            total = total / unit if dividing else total * unit
        return total

    def _symbol_unit_drift(self, spec: RuleSpec, view: AnswerView) -> RuleFailure | None:
        seen: dict[str, tuple[str, Any]] = {}
        declarations: list[tuple[str, str]] = [
            (m.group(1), m.group(2)) for m in _SYMBOL_BRACKET_UNIT.finditer(view.normalised)
        ]
        for m in _SYMBOL_VALUE_UNIT.finditer(view.normalised):
            quantity = self._units.quantities(view.normalised[m.start(2):m.start(2) + 80])
            if quantity and quantity[0].unit is not None and quantity[0].unit_text:
                declarations.append((m.group(1), quantity[0].unit_text))
        for symbol, unit_text in declarations:
            unit = self._units.parse(unit_text)
            if unit is None:
                continue
            key = re.sub(r"[{}]", "", symbol)
            if key in seen and not self._units.same_dimension(seen[key][1], unit):
                return RuleFailure("symbol_unit_drift", f"{symbol} is given units {seen[key][0]!r} and "
                                                        f"{unit_text!r} of different dimensions")
            seen.setdefault(key, (unit_text, unit))
        return None

    def _constant_values(self, spec: RuleSpec, view: AnswerView) -> RuleFailure | None:
        for sentence in view.sentences:
            for constant in CONSTANTS:
                if constant.keyword and not re.search(constant.keyword, sentence, flags=re.IGNORECASE):
                    continue
                pattern = rf"(?<![\w\\])(?:{constant.symbol})(?![\w])\s*(?:=|≈)\s*({_NUMBER})"
                for m in re.finditer(pattern, sentence):
                    failure = self._check_constant(constant, sentence, m)
                    if failure is not None:
                        return failure
        return None

    def _check_constant(self, constant: KnownConstant, sentence: str, m: re.Match[str]) -> RuleFailure | None:
        quantities = self._units.quantities(sentence[m.start(1):m.start(1) + 80])
        if not quantities or quantities[0].unit is None:
            return None
        q = quantities[0]
        reference = self._units.registry.Quantity(1, constant.pint_name).to_base_units()
        if q.unit.dimensionality != reference.dimensionality:
            return None  # the symbol means something else here (a radius, a height)
        stated = self._units.convert(q.number.value, q.unit, reference.units)
        tolerance = self._units.convert(0.5 * q.number.ulp, q.unit, reference.units)
        tolerance = max(abs(tolerance), abs(reference.magnitude) * constant.rel_slack)
        if abs(stated - reference.magnitude) <= tolerance + abs(reference.magnitude) * 5e-4:
            return None
        symbol = re.split(r"[=≈]", m.group(0))[0].strip()
        return RuleFailure("constant_values",
                           f"{symbol} = {q.number.literal.strip()} {q.unit_text} disagrees with the "
                           f"CODATA value {reference.magnitude:.6g} {reference.units:~}")

    def _arithmetic_claims(self, spec: RuleSpec, view: AnswerView) -> RuleFailure | None:
        sentences = view.sentences
        if spec.scope:
            sentences = [s for s in sentences if any(re.search(p, s, re.IGNORECASE) for p in spec.scope)]
        for sentence in sentences:
            failure = self._check_equations(sentence)
            if failure is not None:
                return failure
        return None

    def _check_equations(self, sentence: str) -> RuleFailure | None:
        parts = re.split(r"(=|≈)", sentence)
        # parts: [seg0, op, seg1, op, seg2, ...]; check each "<numeric expr> = <number>" link.
        for i in range(0, len(parts) - 2, 2):
            left = _trailing_expression(parts[i])
            if left is None:
                continue
            right = NUMBER_RE.match(parts[i + 2].lstrip())
            if right is None:
                continue
            value = evaluate_arithmetic(left)
            if value is None:
                continue
            stated = parse_number_match(right)
            # Consistent when the value rounds to the stated literal, with slack for rounded
            # intermediate results.
            tolerance = max(0.5 * literal_ulp(right.group(0)), 2e-3 * abs(stated))
            if abs(value - stated) > tolerance:
                return RuleFailure("arithmetic_claims",
                                   f"{left.strip()} {parts[i + 1]} {right.group(0).strip()} is false "
                                   f"(it evaluates to {value:.4g})")
        return None


_TRAILING_ARITHMETIC = re.compile(
    rf"(?:{_NUMBER}|π|\\pi\b|\bpi\b|√|\bsqrt\b|\\sqrt|\\frac|\\times|\\cdot|[-+*/^()\[\]{{}}×·⋅÷\s])+$"
)


def _trailing_expression(segment: str) -> str | None:
    """The purely numeric arithmetic at the end of `segment`, when it contains an operation."""
    m = _TRAILING_ARITHMETIC.search(segment)
    if m is None:
        return None
    expression = m.group(0).strip()
    start = m.start() + (len(m.group(0)) - len(m.group(0).lstrip()))
    before = segment[:start]
    if expression[:1] in "+-*/^×·⋅÷":
        # "x_1 + 2", "(a) - 3": the left operand is a symbol, so this is not pure arithmetic.
        previous = before.rstrip()[-1:]
        if previous and (previous.isalnum() or previous in "_)]}"):
            return None
    elif before[-1:] and (before[-1].isalnum() or before[-1] in "_\\"):
        return None  # "f(2)", "2x": glued to a symbol
    if not re.search(r"\d", expression) or NUMBER_RE.fullmatch(expression.strip("() ")):
        return None  # no number, or a lone number: nothing to check
    return expression
