from __future__ import annotations

import pytest

from scicustom.core.errors import InvalidInput
from scicustom.core.sciif.final_answer import CorrectnessRule, final_section, parse_targets

DERIVATION = ("Plan: use Smoluchowski capture.\nk_on = 4π D R = 4π(1.50×10^-9)(2.50×10^-6) = 4.712×10^-14 m^3 s^-1"
              "\nAn intermediate value 9.99 m^3/s appears here but is not final.\n\n")


@pytest.fixture(scope="module")
def rule(units):
    return CorrectnessRule(units)


def check(rule, answer, target):
    return rule.check(answer, parse_targets(target))


def test_final_section_prefers_boxed_then_heading_then_last_lines():
    assert final_section("x\n\\boxed{\\frac{a}{b}} and more") == "\\frac{a}{b}"
    assert final_section("work 1\n**Final Answer:** 3 m\n").startswith("**Final Answer:** 3 m")
    assert final_section("a\nb\nc\n\nd") == "c\nd"


def test_numeric_answer_converted_to_the_targets_unit(rule):
    answer = DERIVATION + "Final Answer: k_on = 4.712×10^-11 L/s"
    outcome = check(rule, answer, {"value": 4.7124e-14, "unit": "m^3/s"})
    assert outcome.verdict == "pass"


def test_only_the_final_section_counts(rule):
    # 9.99 m^3/s sits in the derivation, not in the final answer.
    assert check(rule, DERIVATION + "Final Answer: k_on = 4.712×10^-14 m^3/s",
                 {"value": 9.99, "unit": "m^3/s"}).verdict == "fail"


def test_four_significant_figures_decide(rule):
    answer = "Final Answer: B = 3.14×10^-5 T"
    assert check(rule, answer, {"value": 3.1416e-5, "unit": "T"}).verdict == "fail"
    assert check(rule, "Final Answer: B = 3.142×10^-5 T", {"value": 3.1416e-5, "unit": "T"}).verdict == "pass"
    # An item's own tolerance replaces the four-figure rule.
    assert check(rule, answer, {"value": 3.1416e-5, "unit": "T", "rel_tol": 0.01}).verdict == "pass"
    assert check(rule, answer, {"range": [3.0e-5, 3.2e-5], "unit": "T"}).verdict == "pass"


def test_wrong_value_in_the_right_unit_fails_and_names_it(rule):
    outcome = check(rule, "Final Answer: B = 3.5×10^-5 T", {"value": 3.1416e-5, "unit": "T"})
    assert outcome.verdict == "fail"
    assert "3.5×10^-5 T" in outcome.reason


def test_a_bare_number_against_a_united_target_is_left_to_the_judges(rule):
    outcome = check(rule, "Final Answer: B = 3.5", {"value": 3.1416e-5, "unit": "T"})
    assert outcome.verdict == "undecided"


def test_temperature_offsets_and_fractions(rule):
    assert check(rule, "Final answer: 25 °C", {"value": 298.15, "unit": "K"}).verdict == "pass"
    assert check(rule, "Final answer: \\boxed{3/4}", {"value": 0.75}).verdict == "pass"


def test_expressions(rule):
    assert check(rule, "Final Answer: $B = \\frac{\\mu_0 I}{2r}$", {"expression": "mu_0*I/(2*r)"}).verdict == "pass"
    assert check(rule, "Final Answer: B = μ₀I/(2r)", {"expression": "mu_0*I/(2*r)"}).verdict == "pass"
    assert check(rule, "Final Answer: $B = \\frac{\\mu_0 I}{r}$", {"expression": "mu_0*I/(2*r)"}).verdict == "fail"


def test_choices(rule):
    assert check(rule, "... so the answer is (C).", {"choice": "c"}).verdict == "pass"
    assert check(rule, "Final Answer: option D", {"choice": "C"}).verdict == "fail"
    assert check(rule, "Final Answer: (A) or (B)", {"choice": "C"}).verdict == "undecided"


def test_multi_part_targets(rule):
    answer = "Final Answer: (a) 0 N/C; (b) E = 2.50×10^3 N/C"
    both = [{"value": 0, "unit": "N/C"}, {"value": 2500, "unit": "V/m"}]
    assert check(rule, answer, both).verdict == "pass"
    assert check(rule, answer, [{"value": 0, "unit": "N/C"}, {"value": 2600, "unit": "N/C"}]).verdict == "fail"


def test_no_targets_is_undecided(rule):
    assert rule.check("Final Answer: 3", ()).verdict == "undecided"


@pytest.mark.parametrize(("raw", "field"), [
    ({"unit": "m"}, "final_answer"), ({"value": "three"}, "final_answer.value"),
    ({"choice": "CD"}, "final_answer.choice"), ([{"value": 1}, 5], "final_answer[1]"),
    ({"range": [1]}, "final_answer.range"), ({"value": 1, "sig_figs": 0}, "final_answer.sig_figs"),
])
def test_bad_targets_name_the_field(raw, field):
    with pytest.raises(InvalidInput) as info:
        parse_targets(raw)
    assert info.value.field == field
