"""Score a table of hypotheses with all six M2M metrics and cbs.

sns is one computation over the whole input, or, with `group_by`, one per group of rows sharing that
column's value (how the reference's full_benchmark scores several systems); a group smaller than
`min_group_size` (the reference's 5) gets no sns, and its cbs is renormalised over the five other metrics.
Sub-scores and aggregates are rounded with Python's `round` (sns with numpy's) before cbs uses them.

Where this differs from running the reference script: an input without a hypothesis or id column, or
without rows, is an InvalidInput (the reference crashes); score columns already in the input are
ignored (the reference would fold any input column ending in "_aggregate", e.g. cge_aggregate, into cbs).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import cast

from scicustom.core.errors import InvalidInput
from scicustom.core.m2m import hpa, ip, msi, pdq, rcf, sns
from scicustom.core.m2m.cbs import METRICS, cbs_weights, composite_columns
from scicustom.core.m2m.prepared_texts import PreparedTexts
from scicustom.core.m2m.records import M2MRecords
from scicustom.core.m2m.scoring_options import PARITY, ScoringOptions
from scicustom.core.m2m.text_primitives import python_round
from scicustom.core.m2m.vocabulary import M2MVocabulary

MIN_GROUP_SIZE = 5
COUNT_COLUMNS = ("rcf_num_steps", "msi_high_kw_count", "msi_medium_kw_count")
SUB_COLUMNS = {
    "rcf": (*rcf.SUB_SCORES, "rcf_num_steps"),
    "hpa": hpa.SUB_SCORES,
    "msi": (*msi.SUB_SCORES, "msi_high_kw_count", "msi_medium_kw_count"),
    "sns": sns.COLUMNS[:-1],
    "ip": ip.SUB_SCORES,
    "pdq": pdq.SUB_SCORES,
}


@dataclass(frozen=True)
class ScoredRow:
    paper_id: str
    aggregates: Mapping[str, float | None]  # rcf, hpa, msi, sns, ip, pdq; sns None when not computed
    cbs: float
    sub: Mapping[str, float | int | None] = field(default_factory=dict)

    def as_json(self) -> dict[str, object]:
        return {**{m: self.aggregates[m] for m in METRICS}, "cbs": self.cbs, "sub": dict(self.sub)}


def score_records(records: M2MRecords, vocabulary: M2MVocabulary, options: ScoringOptions = PARITY,
                  *, group_by: str | None = None, min_group_size: int = MIN_GROUP_SIZE,
                  id_column: str = "paper_id", with_sns: bool = True,
                  row_columns: Mapping[str, list[float | int | None]] | None = None,
                  sns_columns: Mapping[str, list[float | int | None]] | None = None) -> list[ScoredRow]:
    """Scores of every row; `with_sns=False` leaves sns out (cbs over the other five metrics).
    `row_columns` / `sns_columns`: `row_metric_columns` / `sns_metric_columns` of these records (with
    the same group_by and min_group_size), when the caller computed them (in parts, in two processes)."""
    if len(records) == 0:
        raise InvalidInput("input", "no rows to score")
    for required in (id_column, "hypothesis"):
        if not records.has(required):
            raise InvalidInput(required, "column is missing from the input")
    if group_by is not None and not records.has(group_by):
        raise InvalidInput("group_by", f"no column {group_by!r} in the input")
    decimals = vocabulary.decimals
    columns = dict(row_columns) if row_columns is not None else row_metric_columns(records, vocabulary, options)
    if with_sns:
        columns.update(sns_columns if sns_columns is not None
                       else sns_metric_columns(records, vocabulary, options, group_by, min_group_size))
    else:
        columns.update({name: [None] * len(records) for name in sns.COLUMNS})
    aggregates = {m: columns[f"{m}_aggregate"] for m in METRICS}
    cbs = composite_columns(aggregates, cbs_weights(vocabulary.weights), decimals)
    ids = records.text(id_column)
    rows = []
    for i in range(len(records)):
        rows.append(ScoredRow(
            paper_id=ids[i],
            aggregates={m: aggregates[m][i] for m in METRICS},
            cbs=cbs[i],
            sub={name: columns[name][i] for metric in METRICS for name in SUB_COLUMNS[metric]},
        ))
    return rows


def row_metric_columns(records: M2MRecords, vocabulary: M2MVocabulary,
                       options: ScoringOptions = PARITY) -> dict[str, list[float | int | None]]:
    """The rounded columns of rcf, hpa, msi, ip and pdq. Each row's values depend on that row alone,
    so the columns of a split of the rows, joined, are those of the whole."""
    texts = PreparedTexts(records, vocabulary)
    decimals = vocabulary.decimals
    columns: dict[str, list[float | int | None]] = {}
    for metric_columns in (rcf.score_rcf(texts), hpa.score_hpa(texts), msi.score_msi(texts, options),
                           ip.score_ip(texts, options), pdq.score_pdq(texts, options)):
        for name, values in metric_columns.items():
            columns[name] = (values.tolist() if name in COUNT_COLUMNS
                             else cast(list[float | int | None], python_round(values, decimals)))
    return columns


def sns_metric_columns(records: M2MRecords, vocabulary: M2MVocabulary, options: ScoringOptions,
                       group_by: str | None, min_group_size: int) -> dict[str, list[float | int | None]]:
    """The sns columns: one computation over all rows, or one per `group_by` group (None where a group
    is smaller than `min_group_size`)."""
    n = len(records)
    if group_by is None:
        groups = [list(range(n))]
    else:
        members: dict[str, list[int]] = {}
        for i, key in enumerate(records.text(group_by)):
            members.setdefault(key, []).append(i)
        groups = list(members.values())
    columns: dict[str, list[float | int | None]] = {name: [None] * n for name in sns.COLUMNS}
    for indices in groups:
        if group_by is not None and len(indices) < min_group_size:
            continue
        part = records.subset(indices) if group_by is not None else records
        result = sns.score_sns(
            part.text("hypothesis"),
            part.text("battery_system") if part.has("battery_system") else None,
            part.text("intervention_or_solution") if part.has("intervention_or_solution") else None,
            vocabulary, stable_vocabulary=options.stable_vocabulary, word_bounded_terms=options.word_bounded_terms)
        for name, values in result.items():
            as_floats = values.tolist()
            for position, row in enumerate(indices):
                columns[name][row] = as_floats[position]
    return columns

