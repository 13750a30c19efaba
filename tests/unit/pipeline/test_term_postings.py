"""The world's term postings: which rows name a term, and rows naming all of several."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from scicustom.core.build.term_postings import TermPostings
from scicustom.core.lexical import term_tokens

WORDS = ["enzyme", "kinetics", "virus", "capsid", "renal", "decay"]


def test_rows_are_those_naming_the_stemmed_term_ascending_and_unknown_terms_have_none():
    postings = TermPostings(["Enzymes and kinetics", "A virus capsid", "enzyme kinetics of a virus"])
    assert postings.rows("enzym").tolist() == [0, 2] and postings.rows("viru").tolist() == [1, 2]
    assert postings.rows_naming_all(["enzym", "viru"]).tolist() == [2]
    assert len(postings.rows("nephron")) == 0 and len(postings.rows_naming_all([])) == 0
    assert postings.mask([0, 2]).tolist() == [True, False, True]


@settings(max_examples=50, deadline=None)
@given(st.lists(st.lists(st.sampled_from(WORDS), max_size=4).map(" ".join), max_size=12),
       st.sets(st.sampled_from(WORDS), min_size=1, max_size=3))
def test_rows_naming_all_are_exactly_the_texts_naming_every_term(texts, words):
    postings = TermPostings(texts)
    terms = {term_tokens(w)[0] for w in words}
    expected = [r for r, t in enumerate(texts) if terms <= set(term_tokens(t))]
    assert postings.rows_naming_all(sorted(terms)).tolist() == expected
