from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from scicustom.core.text_overlap import bleu, lcs_length, rouge_l


def lcs_table(a, b):
    table = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i, x in enumerate(a):
        for j, y in enumerate(b):
            table[i + 1][j + 1] = table[i][j] + 1 if x == y else max(table[i][j + 1], table[i + 1][j])
    return table[-1][-1]


@given(st.lists(st.sampled_from("abcde"), max_size=70), st.lists(st.sampled_from("abcde"), max_size=70))
def test_bit_parallel_lcs_equals_the_table(a, b):
    assert lcs_length(a, b) == lcs_table(a, b) == lcs_length(b, a)


def test_bleu_by_hand():
    # p1 = 3/4, p2 = 2/3, p3 = 1/2, p4 = 0/1 -> smoothed 1/(2*1); equal lengths: no brevity penalty.
    assert bleu("a b c d", "a b c e") == pytest.approx((0.75 * (2 / 3) * 0.5 * 0.5) ** 0.25)
    # Short hypothesis: brevity penalty exp(1 - 6/4); effective order for the 4 tokens it has.
    expected = math.exp(1 - 6 / 4) * (1.0 * 1.0 * 1.0 * 1.0) ** 0.25
    assert bleu("a b c d", "a b c d e f") == pytest.approx(expected)
    # Two tokens: orders 1 and 2 only.
    assert bleu("x y", "x z") == pytest.approx((0.5 * (1 / 2)) ** 0.5)
    assert bleu("same text here .", "same text here .") == pytest.approx(1.0)
    assert bleu("", "a") == 0.0 and bleu("a", "") == 0.0


def test_rouge_l_by_hand():
    score = rouge_l("The cat sat on mat", "the cat was on the mat")
    # LCS = the cat on mat = 4; P = 4/5, R = 4/6.
    assert (score.precision, score.recall) == pytest.approx((0.8, 4 / 6))
    assert score.fmeasure == pytest.approx(2 * 0.8 * (4 / 6) / (0.8 + 4 / 6))
    assert rouge_l("Stir at 80 °C!", "stir, at 80 C").fmeasure == pytest.approx(1.0)
    assert rouge_l("", "x").fmeasure == 0.0 and rouge_l("a b", "c d").fmeasure == 0.0
