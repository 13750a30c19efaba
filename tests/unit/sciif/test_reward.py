from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scicustom.core.sciif.catalog import RewardGroup, RewardWeights
from scicustom.core.sciif.reward import compliance_reward, item_reward, total_reward

WEIGHTS = RewardWeights(compliance_weight=0.7, correctness_weight=0.3, groups=(
    RewardGroup("condition", 2.0, {"assumptions": 1.0, "boundary_conditions": 3.0, "units_standard": 1.0}),
    RewardGroup("terminology", 1.0, {"symbols_constants_standardization": 2.0, "variable_naming_consistency": 1.0}),
    RewardGroup("process", 1.0, {"numerical_methods": 1.0}),
))


def test_grouped_severity_by_hand():
    passed = {"assumptions": True, "boundary_conditions": False, "units_standard": True,
              "symbols_constants_standardization": False, "variable_naming_consistency": True}
    # R_condition = (1*1 + 3*0 + 1*1) / 5 = 0.4; R_terminology = (2*0 + 1*1) / 3 = 1/3.
    # Process has no enabled constraint and drops out: R_c = (2*0.4 + 1*(1/3)) / 3 = 0.377777...
    r_c = (2 * 0.4 + 1 / 3) / 3
    assert compliance_reward(WEIGHTS, passed) == pytest.approx(r_c)
    assert total_reward(WEIGHTS, passed, correct=True) == pytest.approx(0.7 * r_c + 0.3)
    assert total_reward(WEIGHTS, passed, correct=False) == pytest.approx(0.7 * r_c)


def test_extremes():
    assert total_reward(WEIGHTS, {"numerical_methods": True}, correct=True) == pytest.approx(1.0)
    assert total_reward(WEIGHTS, {"numerical_methods": False}, correct=False) == 0.0


def test_undecided_inputs_give_no_reward():
    assert item_reward(WEIGHTS, {"assumptions": "undecided"}, "pass") is None
    assert item_reward(WEIGHTS, {"assumptions": "pass"}, "undecided") is None
    assert item_reward(WEIGHTS, {"assumptions": "pass"}, "fail") == pytest.approx(0.7)


def test_unknown_constraint_is_an_error():
    with pytest.raises(KeyError):
        compliance_reward(WEIGHTS, {"experimental_methods": True})


@given(st.dictionaries(st.sampled_from(["assumptions", "boundary_conditions", "units_standard",
                                        "symbols_constants_standardization", "numerical_methods"]),
                       st.booleans(), min_size=1), st.booleans())
def test_reward_is_within_bounds_and_monotone(passed, correct):
    r = total_reward(WEIGHTS, passed, correct)
    assert 0.0 <= r <= 1.0 + 1e-12
    for cid, ok in passed.items():
        if not ok:
            assert total_reward(WEIGHTS, {**passed, cid: True}, correct) > r
