from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from scicustom.core.lexical import BM25, hyphenated_parts, term_tokens, tokenize
from scicustom.core.zero_shot_tagger import ZeroShotParams, assign_units, calibrate_threshold


def test_tokenize_stems_and_drops_stop_words():
    assert tokenize("The viruses are replicating in the cells") == ["virus", "replic", "cell"]


def test_bm25_prefers_matching_and_rarer_terms():
    bm25 = BM25(["viral capsid structure", "cell membrane", "cell cycle and cell division", "capsid"])
    scores = bm25.scores("capsid of a virus")
    assert scores[0] > 0 and scores[3] > scores[0]  # shorter document, same term
    assert scores[1] == scores[2] == 0
    assert bm25.score_text("capsid", "the capsid") == pytest.approx(bm25.scores("capsid")[3])


def test_calibrated_threshold_separates_classes():
    best = np.array([0.10, 0.20, 0.25, 0.40, 0.50, 0.60])
    science = np.array([False, False, False, True, True, True])
    assert calibrate_threshold(best, science) == pytest.approx(0.40)
    with pytest.raises(ValueError):
        calibrate_threshold(best, np.ones(6, dtype=bool))


def test_assign_units_threshold_margin_and_non_scientific():
    sims = np.array([[0.50, 0.45, 0.30, 0.49], [0.10, 0.20, 0.15, 0.05]])
    params = ZeroShotParams(threshold=0.35, margin=0.08, max_units=2)
    tags = assign_units(sims, ["u1", "u2", "u3", "u4"], "ns", params)
    assert [t.unit_id for t in tags[0]] == ["u1", "u4"]  # max 2 units, best first
    assert [t.unit_id for t in tags[1]] == ["ns"]
    assert tags[1][0].score == pytest.approx(0.8)


def test_term_tokens_also_read_a_hyphenated_word_as_one_word_and_as_its_parts():
    assert term_tokens("non-competitive inhibition") == ["non-competit", "non", "competit", "noncompetit", "inhibit"]
    assert term_tokens("genotype-phenotype", parts=False) == ["genotype-phenotyp", "genotypephenotyp"]
    assert hyphenated_parts("solid-state and the X-ray") == [["solid", "state"], ["ray"]]
    assert tokenize("non-competitive") == ["non-competit"]  # BM25's tokens are unchanged


@given(st.text(alphabet="ab- ", max_size=30))
def test_term_tokens_add_to_tokenize_and_only_for_hyphenated_words(text):
    tokens = term_tokens(text)
    assert set(tokenize(text)) <= set(tokens)
    if "-" not in text:
        assert tokens == tokenize(text)
