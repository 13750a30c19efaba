"""ScoreHypotheses messages <-> the M2M use case (`app.scoring.m2m`).

A record becomes the JSONL line it mirrors (only the fields that are set) and goes through
`records_from_jsonl`, so missing fields get exactly the CLI's defaults. The limits here bound what
one message may carry; the use case checks the parameters.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence

from scicustom.app.scoring.m2m import (
    DEFAULT_ATTACK_SAMPLE,
    DEFAULT_JUDGE_PROBLEMS,
    DEFAULT_SEED,
    RECORD_FIELDS,
    M2MRequest,
    M2MScores,
    record_path,
)
from scicustom.core.errors import InvalidInput
from scicustom.core.m2m.records import records_from_jsonl
from scicustom.core.m2m.scoring import MIN_GROUP_SIZE, ScoredRow
from scicustom.core.m2m.scoring_options import ScoringOptions
from scicustom.core.m2m.vocabulary import M2MVocabulary
from scicustom.scorers.v1 import scorers_pb2 as pb

METRICS = ("rcf", "hpa", "msi", "sns", "ip", "pdq")
MAX_RECORDS = 5000
MAX_TEXT_CHARS = 20000
MAX_COLUMNS = 16
MAX_COLUMN_NAME_CHARS = 64
MAX_REFERENCES = 10000


def record_rows(records: Sequence[pb.Hypothesis]) -> list[dict[str, str]]:
    if not records:
        raise InvalidInput("records", "is empty")
    if len(records) > MAX_RECORDS:
        raise InvalidInput("records", f"has {len(records)} entries, above the limit {MAX_RECORDS}")
    rows = []
    for i, record in enumerate(records):
        row = {name: getattr(record, name) for name in RECORD_FIELDS if record.HasField(name)}
        if len(record.columns) > MAX_COLUMNS:
            raise InvalidInput(f"records[{i}].columns", f"has {len(record.columns)} entries, above the limit "
                                                        f"{MAX_COLUMNS}")
        for name, value in sorted(record.columns.items()):
            if name in RECORD_FIELDS:
                raise InvalidInput(f"records[{i}].columns[{name!r}]", f"set the field {name} instead")
            if not 1 <= len(name) <= MAX_COLUMN_NAME_CHARS:
                raise InvalidInput(f"records[{i}].columns", f"a column name needs 1..{MAX_COLUMN_NAME_CHARS} "
                                                            "characters")
            row[name] = value
        for name, value in row.items():
            if len(value) > MAX_TEXT_CHARS:
                raise InvalidInput(record_path(i, name), f"has {len(value)} characters, above the limit "
                                                         f"{MAX_TEXT_CHARS}")
        rows.append(row)
    return rows


def scoring_options(options: pb.M2MOptions) -> ScoringOptions:
    if options.corrected:
        return ScoringOptions.corrected()
    return ScoringOptions(missing_as_empty=options.missing_as_empty, word_bounded_terms=options.word_bounded_terms,
                          stable_vocabulary=options.stable_vocabulary, unicode_units=options.unicode_units)


def m2m_request(request: pb.ScoreHypothesesRequest, vocabulary: M2MVocabulary) -> M2MRequest:
    """The use case's request; an unset count (0) takes the CLI's default."""
    options = request.options
    scoring = scoring_options(options)
    rows = record_rows(request.records)
    if len(options.references) > MAX_REFERENCES:
        raise InvalidInput("options.references", f"has {len(options.references)} entries, above the limit "
                                                 f"{MAX_REFERENCES}")
    data = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows).encode()
    return M2MRequest(
        records=records_from_jsonl(data, vocabulary.text_columns, missing_as_empty=scoring.missing_as_empty),
        scoring=scoring, id_column=options.id_column or None, group_by=options.group_by or None,
        system_column=options.system_column or None, min_group_size=options.min_group_size or MIN_GROUP_SIZE,
        taxonomy=options.taxonomy, sensitivity=options.sensitivity, references=dict(options.references),
        reference_embeddings=options.reference_embeddings, attacks=options.attacks,
        attack_sample=options.attack_sample or DEFAULT_ATTACK_SAMPLE, attack_model=options.attack_model,
        seed=options.seed if options.HasField("seed") else DEFAULT_SEED, judge_models=list(options.judge_models),
        judge_pairs=list(options.judge_pairs), judge_problems=options.judge_problems or DEFAULT_JUDGE_PROBLEMS)


def m2m_response(scores: M2MScores) -> pb.ScoreHypothesesResponse:
    rows, systems = scores.rows, scores.systems
    by_system: dict[str, list[ScoredRow]] = {}
    for i, row in enumerate(rows):
        by_system.setdefault(systems[i] if systems is not None else "", []).append(row)
    usage = scores.usage
    return pb.ScoreHypothesesResponse(
        scores=[_scores(row, systems[i] if systems is not None else "") for i, row in enumerate(rows)],
        overall=_means("", rows),
        per_system=[_means(s, members) for s, members in sorted(by_system.items())] if systems is not None else [],
        scores_json=scores.scores_json(), report_json=scores.report_json(),
        usage=pb.LLMUsage(calls=usage.calls, cached_calls=usage.cached_calls, prompt_tokens=usage.prompt_tokens,
                          completion_tokens=usage.completion_tokens, cost_usd=usage.cost_usd))


def _means(system: str, rows: Sequence[ScoredRow]) -> pb.MetricMeans:
    def mean(values: Sequence[float]) -> float:
        return math.fsum(values) / len(values)

    means = pb.MetricMeans(system=system, rows=len(rows), cbs=mean([r.cbs for r in rows]))
    for metric in METRICS:
        values = [float(v) for r in rows if (v := r.aggregates[metric]) is not None]
        if values:
            setattr(means, metric, mean(values))
    return means


def _scores(row: ScoredRow, system: str) -> pb.HypothesisScores:
    message = pb.HypothesisScores(id=row.paper_id, system=system, cbs=row.cbs,
                                  sub={k: float(v) for k, v in row.sub.items() if v is not None})
    for metric in METRICS:
        value = row.aggregates[metric]
        if value is not None:
            setattr(message, metric, float(value))
    return message
