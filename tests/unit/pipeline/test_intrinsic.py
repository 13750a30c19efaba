from __future__ import annotations

import math

import pytest

from scicustom.core.intrinsic import flesch_reading_ease, perplexity, quality_score


def test_perplexity_is_exp_of_mean_nll():
    assert perplexity([math.log(0.5), math.log(0.25)]) == pytest.approx(math.exp(-(math.log(0.5) + math.log(0.25)) / 2))
    assert perplexity([0.0]) == 1.0
    with pytest.raises(ValueError):
        perplexity([])


def test_flesch_by_hand():
    # 8 words, 1 sentence (textstat counts sentences of 3+ words), 8 one-syllable words.
    text = "The cat sat on the mat all day."
    assert flesch_reading_ease(text) == pytest.approx(206.835 - 1.015 * 8 - 84.6 * 1.0)


def test_harder_text_scores_lower():
    easy = quality_score("What color is the sky on a clear day?", "Blue")
    hard = quality_score("Which immunological characteristic differentiates pathophysiological "
                         "manifestations of glomerulonephritis?", "Complement consumption")
    assert hard < easy
    assert flesch_reading_ease("") == 0.0
