from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from scicustom.core.sciif.quantities import find_numbers, literal_ulp, normalise_text, round_sig, values_agree


@pytest.mark.parametrize(("text", "value"), [
    ("4.71×10^-14", 4.71e-14), ("4.71 x 10^-14", 4.71e-14), ("4.71e-14", 4.71e-14),
    ("4.71 \\times 10^{-14}", 4.71e-14), ("4.71·10⁻¹⁴", 4.71e-14), ("−3.2", -3.2), ("10^19", 1e19),
    ("6.022×10²³", 6.022e23), ("0.0050", 0.005), (".5", 0.5), ("2.5*10**3", 2500.0),
])
def test_scientific_notation_spellings(text, value):
    numbers = find_numbers(normalise_text(text))
    assert len(numbers) == 1
    assert numbers[0].value == pytest.approx(value, rel=1e-12)


@pytest.mark.parametrize("text", ["H2O", "k1", "x_1", "s^-1", "mol-1", "CO2", "m^{-3}", "m^3"])
def test_digits_inside_names_and_exponents_are_not_numbers(text):
    assert find_numbers(normalise_text(text)) == []


def test_binary_minus_is_not_a_sign():
    assert [n.value for n in find_numbers("5-3 = 2")] == [5.0, 3.0, 2.0]


@pytest.mark.parametrize(("literal", "ulp"), [
    ("3.00", 0.01), ("300", 100.0), ("4.71e-14", 1e-16), ("4.710×10^-14", 1e-17), ("0.0050", 1e-4), ("10^19", 1e19),
])
def test_unit_in_last_place(literal, ulp):
    assert literal_ulp(literal) == pytest.approx(ulp)


def test_four_significant_figures():
    assert round_sig(4.71249e-14, 4) == 4.712e-14
    assert values_agree(4.7124e-14, 4.712e-14)
    assert not values_agree(4.71e-14, 4.712e-14)  # three figures where four are compared
    assert values_agree(1.23449, 1.2345)  # rounds apart, but within half a unit of the 4th figure
    assert not values_agree(1.2356, 1.2345)
    assert values_agree(1.2, 1.25, rel_tol=0.05) and not values_agree(1.2, 1.3, rel_tol=0.05)
    assert values_agree(0.0, 0.0) and not values_agree(1e-9, 0.0)
    assert values_agree(12.3, 12.0, abs_tol=0.5)


@settings(max_examples=200, deadline=None)
@given(st.floats(min_value=1e-30, max_value=1e30), st.booleans(), st.sampled_from(["e", "×10^", " \\times 10^"]))
def test_a_four_figure_rendering_reads_back_as_equal(x, negative, style):
    x = -x if negative else x
    mantissa, exponent = f"{x:.3e}".split("e")
    text = f"{mantissa}e{int(exponent)}" if style == "e" else f"{mantissa}{style}{{{int(exponent)}}}"
    (number,) = find_numbers(normalise_text(text))
    assert values_agree(number.value, x)
    assert math.isclose(number.value, float(f"{x:.3e}"), rel_tol=1e-12)


@pytest.mark.parametrize(("text", "unit", "dimension"), [
    ("3.0 m/s", "m/s", {"[length]": 1, "[time]": -1}),
    ("6.00×10^-6 mol m^-2 s^-1 is the flux", "mol m^-2 s^-1", {"[substance]": 1, "[length]": -2, "[time]": -1}),
    ("8.99e9 N·m^2/C^2, so", "N·m^2/C^2", {"[mass]": 1, "[length]": 3, "[time]": -4, "[current]": -2}),
    ("1500 cm-1 band", "cm-1", {"[length]": -1}),
    ("5 J mol-1 K-1 here", "J mol-1 K-1", {"[mass]": 1, "[length]": 2, "[time]": -2, "[substance]": -1,
                                           "[temperature]": -1}),
    ("25 °C", "°C", {"[temperature]": 1}),
    ("(speed 3.0 m/s)", "m/s", {"[length]": 1, "[time]": -1}),
    ("0.1 M solution", "M", {"[substance]": 1, "[length]": -3}),
    ("2 μm", "μm", {"[length]": 1}),
])
def test_units_after_numbers(units, text, unit, dimension):
    (q,) = units.quantities(text)
    assert q.unit_text == unit
    assert units.dimensionality(q.unit) == dimension


@pytest.mark.parametrize(("text", "unit"), [
    ("5 in the box", None), ("the 2nd value", None), ("a 3 point scale", None), ("7 and 8", None),
    ("2 x 3", None), ("9.8 m/s^2 gravity", "m/s^2"), ("6 flux units", None),
])
def test_english_words_are_not_units(units, text, unit):
    assert units.quantities(text)[0].unit_text == unit


def test_conversion_between_units(units):
    assert units.convert(4.7124e-11, units.parse("L/s"), units.parse("m^3/s")) == pytest.approx(4.7124e-14)
    assert units.convert(25, units.parse("°C"), units.parse("K")) == pytest.approx(298.15)
    assert units.same_dimension(units.parse("N/C"), units.parse("V/m"))
    assert units.is_dimensionless(units.parse("%")) and units.is_dimensionless(units.parse("dimensionless"))
    assert units.parse("in") is None and units.parse("point") is None
