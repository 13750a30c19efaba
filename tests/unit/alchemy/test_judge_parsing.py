from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scicustom.core.alchemy.judge import CRITERIA, parse_judge_reply
from tests.unit.alchemy.samples import judge_reply

SCORES = (4.0, 3.5, 4.5, 3.0, 4.0, 3.5, 2.5)


def test_the_papers_format():
    scores = parse_judge_reply(judge_reply()).scores
    assert scores is not None
    assert [scores.criteria[c] for c in CRITERIA] == list(SCORES)
    assert scores.overall == pytest.approx(sum(SCORES) / 7)  # Score = sum C_i / N_C
    assert scores.judge_overall == 3.5 and scores.off_grid == ()


@pytest.mark.parametrize("mangle", [
    lambda r: r.replace("```json", "```"),  # unlabelled fence
    lambda r: r.replace("```json\n", "").replace("\n```", ""),  # no fence at all
    lambda r: r.replace('"overall_score"', '"overall_score"').replace("\n}", ",\n}"),  # trailing comma
    lambda r: r.replace('"', "'"),  # single quotes
    lambda r: r.replace(": 4.5,", ': "4.5/5",'),  # a score as text
    lambda r: "Here is an example: {\"materials_appropriateness_score\": 1.0}\n" + r,  # an earlier object
])
def test_robust_to_common_deviations(mangle):
    scores = parse_judge_reply(mangle(judge_reply())).scores
    assert scores is not None and [scores.criteria[c] for c in CRITERIA] == list(SCORES)


def test_key_value_lines_without_json():
    text = "\n".join(f"- {c}_score: {s}" for c, s in zip(CRITERIA, SCORES, strict=True)) + "\n- overall_score: 3.6"
    scores = parse_judge_reply(text).scores
    assert scores is not None and scores.judge_overall == 3.6
    assert [scores.criteria[c] for c in CRITERIA] == list(SCORES)


def test_off_grid_scores_are_rounded_to_half_points_and_flagged():
    scores = parse_judge_reply(judge_reply(scores=(4.2, 3.5, 4.5, 3.0, 4.0, 3.5, 2.5))).scores
    assert scores is not None and scores.criteria["materials_appropriateness"] == 4.0
    assert scores.off_grid == ("materials_appropriateness",)


@pytest.mark.parametrize(("reply", "problem"), [
    ("The recipe is decent. 4/5.", "missing materials_appropriateness_score"),
    (judge_reply(scores=(4.0, 3.5, 4.5, 3.0, 4.0, 3.5, 7.0)), "characterization_similarity_score 7 is outside 1-5"),
    (judge_reply(scores=(0.0, 3.5, 4.5, 3.0, 4.0, 3.5, 2.5)), "outside 1-5"),
    (judge_reply().replace('"equipment_appropriateness_score": 3.5,', ""), "missing equipment_appropriateness"),
    (judge_reply().replace("3.0", "null"), "missing procedure_similarity_score"),
])
def test_malformed_replies(reply, problem):
    result = parse_judge_reply(reply)
    assert result.scores is None and problem in result.problem


@given(st.lists(st.integers(min_value=2, max_value=10), min_size=7, max_size=7), st.booleans())
def test_round_trip(halves, fenced):
    scores = tuple(h / 2 for h in halves)
    parsed = parse_judge_reply(judge_reply(scores=scores, overall=None, fenced=fenced)).scores
    assert parsed is not None and tuple(parsed.criteria[c] for c in CRITERIA) == scores
    assert parsed.judge_overall is None
    assert parsed.overall == pytest.approx(sum(scores) / 7)
    json.dumps(dict(parsed.criteria))
