from __future__ import annotations

import pytest

from scicustom.core.sciif.catalog import EvidencePoint, RuleSpec
from scicustom.core.sciif.evidence_rules import RuleVerifier
from scicustom.core.sciif.final_answer import parse_targets
from scicustom.core.sciif.quantities import UnitParser


def failure(verifier, kind, text, targets=None, **spec):
    point = EvidencePoint(id="p", role="main", title="t", text="t", rules=(RuleSpec(kind=kind, **spec),))
    return verifier.check_point(point, verifier.view(text, parse_targets(targets)))


def test_evidence_pattern_fails_only_when_nothing_matches(verifier):
    assert failure(verifier, "evidence_pattern", "We neglect air drag.", patterns=("neglect", "assum")) is None
    result = failure(verifier, "evidence_pattern", "v = 3 m/s.", patterns=("neglect", "assum"))
    assert result is not None and result.reason.startswith("missing evidence")


def test_evidence_patterns_can_be_switched_off(units):
    relaxed = RuleVerifier(units, use_evidence_patterns=False)
    assert failure(relaxed, "evidence_pattern", "v = 3 m/s.", patterns=("neglect",)) is None


@pytest.mark.parametrize(("text", "fails"), [
    ("k = 4π(1.50×10^-9)(2.50×10^-6) = 4.71×10^-14 m^3 s^-1", False),
    ("Check: 2 + 2 = 5, consistent.", True),
    ("ratio S/Km = 0.5/2.0 = 0.26", True),  # 0.25 stated as 0.26
    ("F ≈ 10^-11 · 10^46 / 10^16 = 10^19 N", False),
    ("x_1 + 2 = 5 gives x_1 = 3", False),  # symbols: not pure arithmetic
    ("t = 2 h = 7200 s", False),  # units: not pure arithmetic
    ("300/4 = 75.0 and 3 × 4 = 12", False),
])
def test_arithmetic_claims(verifier, text, fails):
    result = failure(verifier, "arithmetic_claims", text)
    assert (result is not None) is fails
    if fails:
        assert "is false" in result.reason


def test_arithmetic_claims_respect_their_scope(verifier):
    text = "Plan: 2 + 2 = 5. We verify the boundary: 1 + 1 = 2."
    assert failure(verifier, "arithmetic_claims", text, scope=("verif",)) is None
    assert failure(verifier, "arithmetic_claims", text) is not None


@pytest.mark.parametrize(("text", "fails"), [
    ("Units: [k (N·m^2/C^2)] × [q s (C·m)]/[L^3 (m^3)] = [N/C].", False),
    ("Unit check: [m^2/s]·[m] = [m^3/s].", False),
    ("Unit check: [N]/[m^2] = [J].", True),
    ("Unit check: [kg][m]^2 = [m^3].", True),
    ("We write [c(R)=0] and [c(∞)=C∞].", False),  # math in brackets, not units
])
def test_unit_claims(verifier, text, fails):
    assert (failure(verifier, "unit_claims", text) is not None) is fails


@pytest.mark.parametrize(("text", "fails"), [
    ("Let v[m/s] be the speed; later v = 3.0 m/s.", False),
    ("Let v[m/s] be the speed, and v[m^3] the volume.", True),
    ("x = 0.80 mm = 8.0×10^-4 m, then x = 0.0008 m.", False),
    ("t = 5 s and later t = 3 kg.", True),
    ("E = 0 N/C inside and E = 2.0 V/m outside.", False),  # same dimension
])
def test_symbol_unit_drift(verifier, text, fails):
    assert (failure(verifier, "symbol_unit_drift", text) is not None) is fails


@pytest.mark.parametrize(("text", "fails"), [
    ("We use the gas constant R = 8.314 J/(mol·K).", False),
    ("We use the gas constant R = 0.08206 L·atm/(mol·K).", False),
    ("We use the gas constant R = 8.314 L·atm/(mol·K).", True),  # value of one unit, unit of another
    ("With the radius R = 2.0 m and the gas constant in mind.", False),  # R is a radius here
    ("N_A = 6.022×10^23 mol^-1 (CODATA).", False),
    ("N_A = 6.22×10^23 mol^-1.", True),
    ("Standard gravity g = 9.8 m/s^2.", False),
    ("Standard gravity g = 8.9 m/s^2.", True),
    ("ε0 = 8.854×10^-12 F/m", False),
    ("μ0 = 4π×10^-7 T·m/A", False),
    ("k_B = 1.381×10^-23 J/K", False),
    ("Planck's constant h = 6.63×10^-34 J·s", False),
    ("Planck's constant h = 6.63×10^-33 J·s", True),
])
def test_constant_values_against_codata(verifier, text, fails):
    assert (failure(verifier, "constant_values", text) is not None) is fails


def test_numeric_anchors(verifier):
    text = "x_1 = x_0 - f(x_0)/f'(x_0) = 1.5 and x_2 ≈ 1.4167"
    assert failure(verifier, "numeric_anchors", text, min_count=2) is None
    result = failure(verifier, "numeric_anchors", text, min_count=3)
    assert result is not None and "2 equation(s)" in result.reason


def test_final_answer_unit(verifier):
    target = {"value": 3.1416e-5, "unit": "T"}
    assert failure(verifier, "final_answer_unit", "Final Answer: B = 3.1×10^-5 T", target) is None
    assert failure(verifier, "final_answer_unit", "Final Answer: B = 3.1×10^-5", target) is not None
    assert failure(verifier, "final_answer_unit", "Final Answer: B = μ0 I/(2r)", target) is None  # symbolic
    assert failure(verifier, "final_answer_unit", "Final Answer: 0.45", {"value": 0.45}) is None


def test_dimensionless_target_given_a_unit(verifier):
    target = {"value": 0.45, "unit": "dimensionless"}
    assert failure(verifier, "dimensionless_target", "Final answer: η = 0.45 (dimensionless)", target) is None
    assert failure(verifier, "dimensionless_target", "Final answer: η = 0.45 m", target) is not None
    assert failure(verifier, "dimensionless_target", "Final answer: η = 0.45 m", {"value": 0.45}) is None


def test_rules_of_one_point_stop_at_the_first_failure(verifier):
    point = EvidencePoint(id="p", role="main", title="t", text="t", rules=(
        RuleSpec(kind="evidence_pattern", patterns=("unit",)), RuleSpec(kind="unit_claims")))
    result = verifier.check_point(point, verifier.view("Unit check: [N]/[m^2] = [J]."))
    assert result is not None and result.rule == "unit_claims"


def test_a_fresh_parser_gives_the_same_verdicts():
    fresh = RuleVerifier(UnitParser())
    assert failure(fresh, "unit_claims", "Unit check: [N]/[m^2] = [J].") is not None
