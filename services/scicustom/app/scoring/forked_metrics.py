"""The M2M metrics of a large input on two cores: a forked child scores the per-row metrics (rcf,
hpa, msi, ip, pdq) of most rows while this process computes sns over all of them and then the
per-row metrics of the rest.

The per-row metrics are pure-Python text work (regexes, token sets) that one process runs on one
core, and each row's values depend on that row alone, so the parts' columns joined are the whole's,
value for value. sns is one computation over every row (TF-IDF neighbours), so it stays whole, in
this process. CHILD_SHARE balances the two: on the paper's 2,645 rows the per-row metrics cost about
1.5 s of CPU in all and sns about 0.33 s, so this process, with sns, takes 40% of the rows (measured as
the CPU time of each part, best of 3, which a busy machine stretches less than wall time: shares
0.6/0.62/0.64/0.66 gave 0.94/0.88/0.87/0.79 s here and 0.95/0.93/1.02/1.01 s in the child, whose
start the fork and its copy of the rows delay by a further 0.03-0.06 s).

The child is forked, not spawned (it starts with everything imported and the records in memory) and
sends its columns back pickled through a pipe; if it fails, its rows are scored here (raising its
error here). Used by the CLI only: a gRPC server's process, with its threads, must not fork. Without
os.fork, with one core or a small input, everything is scored here.
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Callable

from scicustom.core.m2m.records import M2MRecords
from scicustom.core.m2m.scoring import row_metric_columns
from scicustom.core.m2m.scoring_options import ScoringOptions
from scicustom.core.m2m.vocabulary import M2MVocabulary

MIN_ROWS_TO_SPLIT = 400  # below this the fork and the pickling cost about what the second core saves
CHILD_SHARE = 0.6  # of the rows, whose per-row metrics the child scores

Columns = dict[str, list[float | int | None]]


def child_rows(n: int) -> range:
    """The rows the child scores: the last CHILD_SHARE of them."""
    return range(n - round(n * CHILD_SHARE), n)


def metric_columns_on_two_cores(records: M2MRecords, vocabulary: M2MVocabulary, options: ScoringOptions,
                                sns_columns: Callable[[], Columns]) -> tuple[Columns, Columns] | None:
    """(per-row metric columns, `sns_columns()`), or None when the input is better scored in this
    process alone. `sns_columns` runs here, while the child works."""
    n = len(records)
    if not hasattr(os, "fork") or (os.cpu_count() or 1) < 2 or n < MIN_ROWS_TO_SPLIT:
        return None
    theirs = child_rows(n)
    ours = range(theirs.start)
    read_end, write_end = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - runs in the child, which leaves by os._exit
        _score_in_child(records.subset(theirs), vocabulary, options, read_end, write_end)
    os.close(write_end)
    pipe = os.fdopen(read_end, "rb")
    try:
        sns = sns_columns()
        head = row_metric_columns(records.subset(ours), vocabulary, options)
        try:
            tail: Columns | None = pickle.load(pipe)
        except (EOFError, pickle.UnpicklingError):
            tail = None
    finally:
        # Closed before the wait: a child still writing into a full pipe then ends (broken pipe)
        # instead of blocking forever when this process raised.
        pipe.close()
        os.waitpid(child, 0)
    if tail is None:
        # The child failed (an error, or it died): score its rows here, which raises that error here.
        tail = row_metric_columns(records.subset(theirs), vocabulary, options)
    return {name: head[name] + tail[name] for name in head}, sns


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
