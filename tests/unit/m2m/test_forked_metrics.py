"""The metrics scored in two processes (per-row metrics split, sns beside them) are those of one process,
value for value."""

from __future__ import annotations

import os

import pytest

from scicustom.app.scoring import forked_metrics
from scicustom.app.scoring.forked_metrics import MIN_ROWS_TO_SPLIT, child_rows, metric_columns_on_two_cores
from scicustom.core.errors import InvalidInput
from scicustom.core.m2m.records import M2MRecords
from scicustom.core.m2m.scoring import row_metric_columns, score_records, sns_metric_columns
from scicustom.core.m2m.scoring_options import PARITY, ScoringOptions
from scicustom.core.m2m.vocabulary import M2MVocabulary
from tests.unit.m2m.conftest import csv_records
from tests.unit.m2m.synthetic_rows import synthetic_rows

pytestmark = pytest.mark.skipif(not hasattr(os, "fork") or (os.cpu_count() or 1) < 2, reason="needs fork, 2 cores")


@pytest.fixture(scope="module")
def records(vocabulary: M2MVocabulary) -> M2MRecords:
    return csv_records(synthetic_rows(MIN_ROWS_TO_SPLIT + 3, seed=9), vocabulary)


def _rows_only(records: M2MRecords, vocabulary: M2MVocabulary, options: ScoringOptions = PARITY):
    """The per-row columns of two processes (sns left out)."""
    forked = metric_columns_on_two_cores(records, vocabulary, options, dict)
    return forked[0] if forked is not None else None


@pytest.mark.parametrize("options", [PARITY, ScoringOptions.corrected()])
@pytest.mark.parametrize("group_by", [None, "battery_system"])
def test_two_processes_give_the_one_process_scores(records: M2MRecords, vocabulary: M2MVocabulary,
                                                   options: ScoringOptions, group_by: str | None) -> None:
    forked = metric_columns_on_two_cores(
        records, vocabulary, options, lambda: sns_metric_columns(records, vocabulary, options, group_by, 5))
    assert forked is not None
    row_columns, sns_columns = forked
    assert row_columns == row_metric_columns(records, vocabulary, options)
    assert sns_columns == sns_metric_columns(records, vocabulary, options, group_by, 5)
    assert score_records(records, vocabulary, options, group_by=group_by, row_columns=row_columns,
                         sns_columns=sns_columns) == score_records(records, vocabulary, options, group_by=group_by)


def test_the_child_scores_the_larger_share_and_every_row_is_scored_once() -> None:
    for n in (MIN_ROWS_TO_SPLIT, 2645, 10_001):
        theirs = child_rows(n)
        assert theirs.stop == n and n / 2 < len(theirs) < n


def test_small_inputs_stay_in_this_process(vocabulary: M2MVocabulary) -> None:
    few = csv_records(synthetic_rows(MIN_ROWS_TO_SPLIT - 1, seed=2), vocabulary)
    assert metric_columns_on_two_cores(few, vocabulary, PARITY, dict) is None


def test_an_error_in_the_child_is_raised_here_too(records: M2MRecords, vocabulary: M2MVocabulary,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    parent = os.getpid()

    def failing_on_the_childs_rows(part: M2MRecords, *args: object) -> object:
        if part.text("paper_id")[0] == records.text("paper_id")[child_rows(len(records)).start]:
            raise InvalidInput("hypothesis", f"bad row among the child's ({os.getpid() == parent})")
        return row_metric_columns(part, vocabulary, PARITY)

    monkeypatch.setattr(forked_metrics, "row_metric_columns", failing_on_the_childs_rows)
    with pytest.raises(InvalidInput, match=r"child's \(True\)"):  # raised by this process
        _rows_only(records, vocabulary)


def test_a_child_that_sends_nothing_has_its_rows_scored_here(records: M2MRecords, vocabulary: M2MVocabulary,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    parent = os.getpid()

    def dying_in_child(part: M2MRecords, *args: object) -> object:
        if os.getpid() != parent:
            os._exit(3)
        return row_metric_columns(part, vocabulary, PARITY)

    monkeypatch.setattr(forked_metrics, "row_metric_columns", dying_in_child)
    assert _rows_only(records, vocabulary) == row_metric_columns(records, vocabulary, PARITY)


def test_an_error_here_ends_a_child_blocked_on_a_full_pipe(records: M2MRecords, vocabulary: M2MVocabulary,
                                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    parent = os.getpid()

    def raising_here_while_the_child_sends_a_lot(part: M2MRecords, *args: object) -> object:
        if os.getpid() == parent:
            raise InvalidInput("hypothesis", "bad row among this process's")
        return {"rcf": [0.5] * 1_000_000}  # far more than a pipe buffers: the child blocks writing

    monkeypatch.setattr(forked_metrics, "row_metric_columns", raising_here_while_the_child_sends_a_lot)
    with pytest.raises(InvalidInput, match="this process's"):  # before the fix: waited on the child forever
        _rows_only(records, vocabulary)
