from __future__ import annotations

import pytest

from scicustom.core.sciif.expressions import (
    align_symbols,
    evaluate_arithmetic,
    expressions_equivalent,
    parse_expression,
)


@pytest.mark.parametrize(("a", "b"), [
    (r"\frac{\mu_0 I}{2 r}", "mu_0*I/(2*r)"),
    ("μ₀ I/(2r)", "mu_0 I/(2 r)"),
    (r"\sqrt{\frac{2 g h}{3}}", "sqrt(2*g*h/3)"),
    ("k q s/L^3", "q*s*k/L**3"),
    ("4 π D R", "4*pi*D*R"),
    ("(a+b)^2", "a^2 + 2 a b + b^2"),
    ("E gamma", "gamma*E"),  # E and gamma are plain symbols, not Euler's number and the Gamma function
])
def test_equivalent_expressions(a, b):
    ea, eb = parse_expression(a), parse_expression(b)
    assert ea is not None and eb is not None
    assert expressions_equivalent(ea, eb)


@pytest.mark.parametrize(("a", "b"), [
    ("k q s/L^2", "k q s/L^3"),
    (r"\frac{\mu_0 I}{r}", "mu_0*I/(2*r)"),
    ("a - b", "b - a"),
    ("I", "I + 1"),
])
def test_different_expressions(a, b):
    assert not expressions_equivalent(parse_expression(a), parse_expression(b))


def test_run_together_names_are_split_into_the_references_symbols():
    reference = parse_expression("sqrt(2*g*h)")
    candidate = parse_expression("sqrt(2gh)")
    assert not expressions_equivalent(candidate, reference)
    assert expressions_equivalent(align_symbols(candidate, reference), reference)


@pytest.mark.parametrize("text", ["", "__import__('os')", "x = 3", "lambda: 1", "{1: 2}"])
def test_unparseable_or_unsafe_text_gives_none(text):
    assert parse_expression(text) is None


@pytest.mark.parametrize(("text", "value"), [
    ("4π(1.50×10^-9)(2.50×10^-6)", 4 * 3.141592653589793 * 1.5e-9 * 2.5e-6),
    ("(1.50×10^-9)(1.00×10^-2)/(2.50×10^-6)", 6e-6),
    ("\\frac{1}{2} \\times 4", 2.0), ("3 x 10^2", 300.0), ("√2 · √2", 2.0), ("2^10", 1024.0),
    ("-3 + 5", 2.0), ("10^{-3} \\times 5", 0.005),
])
def test_arithmetic(text, value):
    assert evaluate_arithmetic(text) == pytest.approx(value, rel=1e-12)


@pytest.mark.parametrize("text", ["2 h", "x + 1", "__import__('os').system('true')", "2**99999", "1/0", "abc"])
def test_non_arithmetic_is_refused(text):
    assert evaluate_arithmetic(text) is None
