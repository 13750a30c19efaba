"""The per-row metrics scored in two processes are those of one process, value for value."""

from __future__ import annotations

import os

import pytest

from scicustom.app.scoring import forked_row_metrics
from scicustom.app.scoring.forked_row_metrics import MIN_ROWS_TO_SPLIT, row_metric_columns_on_two_cores
from scicustom.core.errors import InvalidInput
from scicustom.core.m2m.records import M2MRecords
from scicustom.core.m2m.scoring import row_metric_columns
from scicustom.core.m2m.scoring_options import PARITY, ScoringOptions
from scicustom.core.m2m.vocabulary import M2MVocabulary
from tests.unit.m2m.conftest import csv_records
from tests.unit.m2m.synthetic_rows import synthetic_rows

pytestmark = pytest.mark.skipif(not hasattr(os, "fork") or (os.cpu_count() or 1) < 2, reason="needs fork, 2 cores")


@pytest.fixture(scope="module")
def records(vocabulary: M2MVocabulary) -> M2MRecords:
    return csv_records(synthetic_rows(MIN_ROWS_TO_SPLIT + 3, seed=9), vocabulary)


@pytest.mark.parametrize("options", [PARITY, ScoringOptions.corrected()])
def test_two_processes_give_the_one_process_columns(records: M2MRecords, vocabulary: M2MVocabulary,
                                                    options: ScoringOptions) -> None:
    assert row_metric_columns_on_two_cores(records, vocabulary, options) == row_metric_columns(
        records, vocabulary, options)


def test_small_inputs_stay_in_this_process(vocabulary: M2MVocabulary) -> None:
    few = csv_records(synthetic_rows(MIN_ROWS_TO_SPLIT - 1, seed=2), vocabulary)
    assert row_metric_columns_on_two_cores(few, vocabulary, PARITY) is None


def test_an_error_in_the_child_is_raised_here_too(records: M2MRecords, vocabulary: M2MVocabulary,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    parent = os.getpid()

    def failing_on_the_second_half(part: M2MRecords, *args: object) -> object:
        if part.text("paper_id")[0] == records.text("paper_id")[len(records) // 2]:
            raise InvalidInput("hypothesis", f"bad row in the second half ({os.getpid() == parent})")
        return row_metric_columns(part, vocabulary, PARITY)

    monkeypatch.setattr(forked_row_metrics, "row_metric_columns", failing_on_the_second_half)
    with pytest.raises(InvalidInput, match=r"second half \(True\)"):  # raised by this process
        row_metric_columns_on_two_cores(records, vocabulary, PARITY)


def test_a_child_that_sends_nothing_has_its_half_scored_here(records: M2MRecords, vocabulary: M2MVocabulary,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    parent = os.getpid()

    def dying_in_child(part: M2MRecords, *args: object) -> object:
        if os.getpid() != parent:
            os._exit(3)
        return row_metric_columns(part, vocabulary, PARITY)

    monkeypatch.setattr(forked_row_metrics, "row_metric_columns", dying_in_child)
    assert row_metric_columns_on_two_cores(records, vocabulary, PARITY) == row_metric_columns(
        records, vocabulary, PARITY)


def test_an_error_in_this_half_ends_a_child_blocked_on_a_full_pipe(records: M2MRecords, vocabulary: M2MVocabulary,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    parent = os.getpid()

    def raising_here_while_the_child_sends_a_lot(part: M2MRecords, *args: object) -> object:
        if os.getpid() == parent:
            raise InvalidInput("hypothesis", "bad row in the first half")
        return {"rcf": [0.5] * 1_000_000}  # far more than a pipe buffers: the child blocks writing

    monkeypatch.setattr(forked_row_metrics, "row_metric_columns", raising_here_while_the_child_sends_a_lot)
    with pytest.raises(InvalidInput, match="first half"):  # before the fix: waited on the child forever
        row_metric_columns_on_two_cores(records, vocabulary, PARITY)
