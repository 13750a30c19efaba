"""The per-row M2M metrics (rcf, hpa, msi, ip, pdq) of a large input on two cores: a forked child
scores the second half of the rows while this process scores the first.

They are pure-Python text work (regexes, token sets) that one process runs on one core, and each row's
values depend on that row alone, so the halves' columns joined are the whole's, value for value. The
child is forked, not spawned (it starts with everything imported and the records in memory) and
sends its columns back pickled through a pipe; if it fails, its half is scored here (raising
its error here). Used by the CLI only: a gRPC server's process, with
its threads, must not fork. Without os.fork, with one core or a small input, the rows are scored here.
"""

from __future__ import annotations

import os
import pickle

from scicustom.core.m2m.records import M2MRecords
from scicustom.core.m2m.scoring import row_metric_columns
from scicustom.core.m2m.scoring_options import ScoringOptions
from scicustom.core.m2m.vocabulary import M2MVocabulary

MIN_ROWS_TO_SPLIT = 400  # below this the fork and the pickling cost about what the second core saves

Columns = dict[str, list[float | int | None]]


def row_metric_columns_on_two_cores(records: M2MRecords, vocabulary: M2MVocabulary,
                                    options: ScoringOptions) -> Columns | None:
    """The columns, or None when the rows are better scored in this process alone."""
    n = len(records)
    if not hasattr(os, "fork") or (os.cpu_count() or 1) < 2 or n < MIN_ROWS_TO_SPLIT:
        return None
    half = n // 2
    read_end, write_end = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - runs in the child, which leaves by os._exit
        _score_in_child(records.subset(range(half, n)), vocabulary, options, read_end, write_end)
    os.close(write_end)
    pipe = os.fdopen(read_end, "rb")
    try:
        first = row_metric_columns(records.subset(range(half)), vocabulary, options)
        try:
            second: Columns | None = pickle.load(pipe)
        except (EOFError, pickle.UnpicklingError):
            second = None
    finally:
        # Closed before the wait: a child still writing into a full pipe then ends (broken pipe)
        # instead of blocking forever when this half raised.
        pipe.close()
        os.waitpid(child, 0)
    if second is None:
        # The child failed (an error, or it died): score its half here, which raises that error here.
        second = row_metric_columns(records.subset(range(half, n)), vocabulary, options)
    return {name: first[name] + second[name] for name in first}


def _score_in_child(part: M2MRecords, vocabulary: M2MVocabulary, options: ScoringOptions, read_end: int,
                    write_end: int) -> None:
    os.close(read_end)
    code = 1
    try:
        columns = row_metric_columns(part, vocabulary, options)
        with os.fdopen(write_end, "wb") as pipe:
            pickle.dump(columns, pipe, protocol=pickle.HIGHEST_PROTOCOL)
        code = 0
    finally:  # whatever happened, the child ends here: it must not return into the parent's code
        os._exit(code)
