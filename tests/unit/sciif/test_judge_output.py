from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from scicustom.core.sciif.judge_output import parse_pointwise, parse_verdict


def test_the_papers_format():
    reply = "POINT_1: YES\nPOINT_2: NO [no unit self-check]\nOVERALL: NO\nOVERALL_REASON: [point 2]"
    parsed = parse_pointwise(reply)
    assert parsed.verdicts == {1: True, 2: False}
    assert parsed.reasons[2] == "no unit self-check"
    assert parsed.overall is False and parsed.complete(2) and not parsed.complete(3)


def test_decorated_variants():
    reply = ("Reasoning first...\n**POINT_1**: YES\n- Point 2 - PASS\n> POINT 3 [MAIN]: **NO** because x\n"
             "point_4 = fail\n**OVERALL:** NO")
    parsed = parse_pointwise(reply)
    assert parsed.verdicts == {1: True, 2: True, 3: False, 4: False}
    assert parsed.reasons[3] == "because x"


def test_the_last_verdict_for_a_point_wins():
    parsed = parse_pointwise("POINT_1: YES\nOn reflection:\nPOINT_1: NO [claimed check is wrong]")
    assert parsed.verdicts == {1: False}


def test_prose_is_not_a_verdict():
    parsed = parse_pointwise("The first point is fine and yes, point 1 holds; overall yes.")
    assert parsed.verdicts == {} and parsed.overall is None


def test_verdict_replies():
    assert parse_verdict("VERDICT: YES\nREASON: [-]").verdict is True
    assert parse_verdict("**Verdict**: no\nReason: different final value").reason == "different final value"
    assert parse_verdict("NO\n\nThe values differ.").verdict is False  # a bare first-line verdict
    assert parse_verdict("YES or NO? Hard to say.").verdict is None
    assert parse_verdict("YES\nNO").verdict is None


@given(st.lists(st.booleans(), min_size=1, max_size=12))
def test_round_trip(verdicts):
    reply = "\n".join(f"POINT_{i}: {'YES' if v else 'NO [x]'}" for i, v in enumerate(verdicts, 1))
    parsed = parse_pointwise(reply + "\nOVERALL: NO")
    assert parsed.verdicts == {i: v for i, v in enumerate(verdicts, 1)}
    assert parsed.complete(len(verdicts))
