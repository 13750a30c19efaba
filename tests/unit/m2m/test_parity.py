"""The vectorised implementation against the naive row-by-row oracle, and its shortcuts against the
plain operations they replace."""

from __future__ import annotations

import re
import statistics
from dataclasses import replace

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from scicustom.core.m2m import term_presence
from scicustom.core.m2m.pattern_hits import PatternMatcher
from scicustom.core.m2m.prepared_texts import PreparedTexts
from scicustom.core.m2m.reasoning_steps import MARKED_STEP_PATTERN, marked_spans, split_reasoning
from scicustom.core.m2m.records import M2MRecords
from scicustom.core.m2m.scoring import score_records
from scicustom.core.m2m.sns import tfidf_tokens
from scicustom.core.m2m.term_presence import TermPresence
from scicustom.core.m2m.text_primitives import TermMatcher, exact_mean, word_runs
from tests.unit.m2m.conftest import csv_records
from tests.unit.m2m.naive_m2m import NEEDED, naive_scores
from tests.unit.m2m.synthetic_rows import synthetic_rows

FRAGMENTS = ["tem", "system", "li", "lithium", "co", "coating", "charge transfer", "charge", "transfer",
             "butler-volmer", "c-rate", "sei formation", "dendrite", "xrd", "cryo-tem", "mass production",
             "commercializing", "thereby", "by", "increasing", "will", "enable", "thus", "strong", "moderate",
             "5 nm", "5nm", "1.2.3nm", "25 °c", "25 ℃", "4.2 v", "10 µm", "10 μm", "3 ma cm-2", "2 mg cm-3",
             "× 10-4", "x 10⁻3", "80 %", "12 fold", "mah", "Ünïcode", "naïve", "ΣΑΣ", "İstanbul", "٣ nm", "_x_",
             "[Begin Step 1]", "[End Step 1]", "[Begin Step 2]", "[End Step 2]", "[Begin Step 3]", "[End Step 3]",
             "machine learning", "mof", "bot", "both", "nan", "", "\u00a0", "\u2009", "-", "/", ".", ","]
SEPARATORS = [" ", "  ", "\n", "\t", "", " . ", "\x1c"]


@st.composite
def texts(draw: st.DrawFn) -> str:
    parts = draw(st.lists(st.sampled_from(FRAGMENTS), max_size=25))
    seps = draw(st.lists(st.sampled_from(SEPARATORS), min_size=len(parts), max_size=len(parts)))
    return "".join(p + s for p, s in zip(parts, seps, strict=True))


@st.composite
def tables(draw: st.DrawFn) -> M2MRecords:
    n = draw(st.integers(min_value=1, max_value=7))
    columns = {name: tuple(draw(texts()) for _ in range(n)) for name in NEEDED if name != "paper_id"}
    columns["battery_system"] = tuple(draw(st.sampled_from(["NMC", "LFP", "nmc811", "silicon", ""])) for _ in range(n))
    columns["paper_id"] = tuple(f"p{i}" for i in range(n))
    dropped = draw(st.sets(st.sampled_from(["battery_system", "intervention_or_solution", "target_property"])))
    return M2MRecords({k: v for k, v in columns.items() if k not in dropped}, n)


def assert_same(fast, naive) -> None:  # type: ignore[no-untyped-def]
    for f, n in zip(fast, naive, strict=True):
        for name, value in f.sub.items():
            expected = n["scores"].get(name)
            assert value == expected and type(value) is type(expected), (f.paper_id, name, value, expected)
        for metric, value in f.aggregates.items():
            assert value == n["scores"].get(f"{metric}_aggregate"), (f.paper_id, metric)
        assert f.cbs == n["cbs"], f.paper_id


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tables())
def test_fast_equals_naive_on_generated_rows(vocabulary, table: M2MRecords) -> None:
    assert_same(score_records(table, vocabulary), naive_scores(table, vocabulary))


def test_fast_equals_naive_on_realistic_csv(vocabulary) -> None:
    records = csv_records(synthetic_rows(160, seed=7), vocabulary)
    assert_same(score_records(records, vocabulary), naive_scores(records, vocabulary))
    grouped = score_records(records, vocabulary, group_by="battery_system")
    assert_same(grouped, naive_scores(records, vocabulary, group_by="battery_system"))


@given(st.lists(st.floats(allow_nan=False, allow_infinity=False, min_value=-1e6, max_value=1e6), min_size=1))
def test_exact_mean_is_statistics_mean(values: list[float]) -> None:
    assert exact_mean(values) == statistics.mean(values)


@given(st.text() | texts())
def test_word_runs_are_regex_word_runs(text: str) -> None:
    assert word_runs(text) == re.findall(r"\b\w+\b", text)


@given(st.text() | texts())
def test_tfidf_tokens_are_regex_tokens(vocabulary, text: str) -> None:
    assert tfidf_tokens(vocabulary.tfidf_token, text) == vocabulary.tfidf_token.findall(text.lower())


@settings(max_examples=300, deadline=None)
@given(st.text() | texts())
def test_marked_steps_are_the_regex_captures(text: str) -> None:
    pattern = re.compile(MARKED_STEP_PATTERN, re.DOTALL)
    assert [text[start:end] for start, end in marked_spans(text)] == pattern.findall(text)
    steps, around = split_reasoning(pattern, text)
    assert steps == [s.strip() for s in pattern.findall(text) if s.strip()]
    # The word runs of the whole lower-cased text are those of its steps and of the text around them.
    assert around is not None
    runs = set(word_runs(around.lower())).union(*(word_runs(s.lower()) for s in steps))
    assert runs == set(word_runs(text.lower()))


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text() | texts(), min_size=1, max_size=4), st.sampled_from([MARKED_STEP_PATTERN, r"Step: (.*)"]))
def test_reasoning_runs_are_the_word_runs_of_the_reasoning(vocabulary, reasonings: list[str], step: str) -> None:
    table = M2MRecords({"reasoning_process": tuple(reasonings)}, len(reasonings))
    prepared = PreparedTexts(table, replace(vocabulary, step_pattern=re.compile(step, re.DOTALL)))
    runs = [frozenset().union(*parts) for parts in prepared.reasoning_runs()]
    assert runs == [frozenset(word_runs(r.lower())) for r in reasonings]


@settings(max_examples=200, deadline=None)
@given(st.lists(texts(), min_size=1, max_size=6), st.booleans())
def test_term_presence_is_plain_matching(vocabulary, rows: list[str], bounded: bool) -> None:
    terms = list(dict.fromkeys([*vocabulary.mechanism_high, *vocabulary.scalable, *vocabulary.non_scalable,
                                "li", "co", "mass produc", "commercializ"]))
    lowered = [r.lower() for r in rows]
    plain = TermMatcher(terms, bounded)
    expected = [plain.present(t) for t in lowered]
    default = term_presence._INDEXED_RUNS
    try:
        for limit in (-1, 1 << 30):  # every lookup by direct test, then every lookup by the index
            term_presence._INDEXED_RUNS = limit
            matrix = TermPresence(terms, bounded).matrix(lowered, [(frozenset(word_runs(t)),) for t in lowered])
            assert matrix.tolist() == expected
            # A text's runs given as those of its parts, as for texts joined from fields.
            halves = [(t[:len(t) // 2], t[len(t) // 2:]) for t in lowered]
            joined = [f"{a} {b}" for a, b in halves]
            parts = [(frozenset(word_runs(a)), frozenset(word_runs(b))) for a, b in halves]
            assert TermPresence(terms, bounded).matrix(joined, parts).tolist() == [plain.present(t) for t in joined]
    finally:
        term_presence._INDEXED_RUNS = default


@settings(max_examples=200, deadline=None)
@given(texts())
def test_pattern_shortcuts_are_plain_search(vocabulary, text: str) -> None:
    lowered = text.lower()
    for patterns in (vocabulary.quantity_patterns, vocabulary.causal_patterns):
        assert PatternMatcher(patterns).count(lowered) == sum(1 for p in patterns if p.search(lowered))
