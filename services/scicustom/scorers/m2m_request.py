"""ScoreHypotheses: M2M records and options as `scicustom score m2m` reads them, scored and reported by
the same core calls, so `scores_json` / `report_json` are the documents the command writes.

A record becomes the JSONL line it mirrors (only the fields that are set) and goes through
`records_from_jsonl`, so missing fields get exactly the CLI's defaults.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from scicustom.commands.score_m2m import scores_document
from scicustom.core.errors import InvalidInput
from scicustom.core.m2m.gaming_attacks import gaming_report
from scicustom.core.m2m.pairwise_judge import answers_by_system, pairwise_report
from scicustom.core.m2m.records import M2MRecords, records_from_jsonl
from scicustom.core.m2m.reference_metrics import reference_metrics_report
from scicustom.core.m2m.scoring import MIN_GROUP_SIZE, ScoredRow, score_records
from scicustom.core.m2m.scoring_options import ScoringOptions
from scicustom.core.m2m.sensitivity import sensitivity_report
from scicustom.core.m2m.taxonomy import taxonomy_report
from scicustom.core.m2m.vocabulary import M2MVocabulary
from scicustom.grpc_server.field_checks import bounded
from scicustom.ports import LLM, Embedder
from scicustom.scorers.request_usage import MeteredLLM
from scicustom.scorers.v1 import scorers_pb2 as pb

FIELDS = ("paper_id", "problem_statement", "problem_core", "hypothesis", "reasoning_process",
          "mechanism_or_rationale", "intervention_or_solution", "claimed_outcome", "target_property",
          "novelty_axis", "battery_system", "component", "failure_mode_or_limitation", "keywords",
          "evidence_strength", "problem_type_broad", "problem_type_fine")
METRICS = ("rcf", "hpa", "msi", "sns", "ip", "pdq")
MAX_RECORDS = 5000
MAX_TEXT_CHARS = 20000
MAX_COLUMNS = 16
MAX_COLUMN_NAME_CHARS = 64
MAX_REFERENCES = 10000
MAX_JUDGES = 4
MAX_PAIRS = 50
MAX_MODEL_CHARS = 200
DEFAULT_SEED = 42            # the CLI's --seed
DEFAULT_ATTACK_SAMPLE = 75   # the CLI's --attack-sample
DEFAULT_JUDGE_PROBLEMS = 50  # the CLI's --judge-problems


def _path(index: int, column: str) -> str:
    """The proto path of a column of records[index]."""
    return f"records[{index}].{column}" if column in FIELDS else f"records[{index}].columns[{column!r}]"


def record_rows(records: Sequence[pb.Hypothesis]) -> list[dict[str, str]]:
    if not records:
        raise InvalidInput("records", "is empty")
    if len(records) > MAX_RECORDS:
        raise InvalidInput("records", f"has {len(records)} entries, above the limit {MAX_RECORDS}")
    rows = []
    for i, record in enumerate(records):
        row = {name: getattr(record, name) for name in FIELDS if record.HasField(name)}
        if len(record.columns) > MAX_COLUMNS:
            raise InvalidInput(f"records[{i}].columns", f"has {len(record.columns)} entries, above the limit "
                                                        f"{MAX_COLUMNS}")
        for name, value in sorted(record.columns.items()):
            if name in FIELDS:
                raise InvalidInput(f"records[{i}].columns[{name!r}]", f"set the field {name} instead")
            if not 1 <= len(name) <= MAX_COLUMN_NAME_CHARS:
                raise InvalidInput(f"records[{i}].columns", f"a column name needs 1..{MAX_COLUMN_NAME_CHARS} "
                                                            "characters")
            row[name] = value
        for name, value in row.items():
            if len(value) > MAX_TEXT_CHARS:
                raise InvalidInput(_path(i, name), f"has {len(value)} characters, above the limit {MAX_TEXT_CHARS}")
        rows.append(row)
    return rows


def scoring_options(options: pb.M2MOptions) -> ScoringOptions:
    if options.corrected:
        return ScoringOptions.corrected()
    return ScoringOptions(missing_as_empty=options.missing_as_empty, word_bounded_terms=options.word_bounded_terms,
                          stable_vocabulary=options.stable_vocabulary, unicode_units=options.unicode_units)


def _check_columns(records: M2MRecords, options: pb.M2MOptions, id_column: str) -> None:
    if not records.has("hypothesis"):
        raise InvalidInput("records.hypothesis", "is unset in every record")
    if not records.has(id_column):
        raise InvalidInput("options.id_column" if options.id_column else "records.paper_id",
                           f"no record has a column {id_column!r}")
    for name in ("group_by", "system_column"):
        column = getattr(options, name)
        if column and not records.has(column):
            raise InvalidInput(f"options.{name}", f"no record has a column {column!r}")


def _check_unique_ids(records: M2MRecords, id_column: str, systems: Sequence[str] | None) -> None:
    """Ids unique (within each system): the scores document is keyed by them."""
    first: dict[tuple[str, str], int] = {}
    for i, item_id in enumerate(records.text(id_column)):
        key = (systems[i] if systems is not None else "", item_id)
        if key in first:
            within = f" of system {key[0]!r}" if systems is not None else ""
            raise InvalidInput(_path(i, id_column), f"{item_id!r} repeats records[{first[key]}]{within}; ids must "
                                                    "be unique (give a system_column for several systems)")
        first[key] = i


def _judge_models(options: pb.M2MOptions) -> list[str]:
    if len(options.judge_models) > MAX_JUDGES:
        raise InvalidInput("options.judge_models", f"has {len(options.judge_models)} entries, above the limit "
                                                   f"{MAX_JUDGES}")
    for k, model in enumerate(options.judge_models):
        if not model.strip() or len(model) > MAX_MODEL_CHARS:
            raise InvalidInput(f"options.judge_models[{k}]", f"needs 1..{MAX_MODEL_CHARS} characters")
    if options.judge_models and not options.system_column:
        raise InvalidInput("options.judge_models", "the pairwise judge compares systems: give a system_column")
    return [m.strip() for m in options.judge_models]


def _judge_pairs(options: pb.M2MOptions, systems: set[str]) -> list[tuple[str, str]] | None:
    if not options.judge_pairs:
        return None
    if len(options.judge_pairs) > MAX_PAIRS:
        raise InvalidInput("options.judge_pairs", f"has {len(options.judge_pairs)} entries, above the limit "
                                                  f"{MAX_PAIRS}")
    pairs = []
    for k, text in enumerate(options.judge_pairs):
        left, sep, right = text.strip().partition(":")
        if not sep or left not in systems or right not in systems:
            raise InvalidInput(f"options.judge_pairs[{k}]", f"{text.strip()!r} is not SYSTEM_A:SYSTEM_B of known "
                                                            f"systems ({', '.join(sorted(systems))})")
        pairs.append((left, right))
    return pairs


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


def score_hypotheses(request: pb.ScoreHypothesesRequest, vocabulary: M2MVocabulary, llm: Callable[[], LLM],
                     embedder: Callable[[], Embedder]) -> pb.ScoreHypothesesResponse:
    """`llm` and `embedder` are called only when a report needs them."""
    options = request.options
    scoring = scoring_options(options)
    rows_in = record_rows(request.records)
    id_column = options.id_column or "paper_id"
    min_group_size = bounded(options.min_group_size, "options.min_group_size", 100000, MIN_GROUP_SIZE)
    judges = _judge_models(options)
    if len(options.references) > MAX_REFERENCES:
        raise InvalidInput("options.references", f"has {len(options.references)} entries, above the limit "
                                                 f"{MAX_REFERENCES}")
    if len(options.attack_model) > MAX_MODEL_CHARS:
        raise InvalidInput("options.attack_model", f"has more than {MAX_MODEL_CHARS} characters")
    data = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows_in).encode()
    records = records_from_jsonl(data, vocabulary.text_columns, missing_as_empty=scoring.missing_as_empty)
    _check_columns(records, options, id_column)
    systems = records.text(options.system_column) if options.system_column else None
    _check_unique_ids(records, id_column, systems)
    pairs = _judge_pairs(options, set(systems)) if systems is not None else None
    rows = score_records(records, vocabulary, scoring, group_by=options.group_by or None,
                         min_group_size=min_group_size, id_column=id_column)

    report: dict[str, Any] = {}
    meters: list[MeteredLLM] = []
    if options.taxonomy:
        report["taxonomy"] = taxonomy_report(rows, systems)
    if options.sensitivity:
        report["sensitivity"] = sensitivity_report(rows, systems)
    if options.references:
        report["reference_metrics"] = _reference_section(records, rows, systems, options.references,
                                                         embedder() if options.reference_embeddings else None)
    seed = options.seed if options.HasField("seed") else DEFAULT_SEED
    if options.attacks:
        sample = bounded(options.attack_sample, "options.attack_sample", 10000, DEFAULT_ATTACK_SAMPLE)
        attack_llm = MeteredLLM(llm()) if options.attack_model else None
        report["attacks"] = gaming_report(records, rows, vocabulary, scoring, sample=sample, seed=seed,
                                          id_column=id_column, llm=attack_llm, model=options.attack_model)
        if attack_llm is not None:
            report["attacks"]["usage"] = attack_llm.summary()
            meters.append(attack_llm)
    if judges and systems is not None:
        problems = bounded(options.judge_problems, "options.judge_problems", 1000, DEFAULT_JUDGE_PROBLEMS)
        judge_llm = MeteredLLM(llm())
        report["pairwise_judge"] = _judge_section(judge_llm, judges, records, rows, systems, pairs, problems, seed)
        report["pairwise_judge"]["usage"] = judge_llm.summary()
        meters.append(judge_llm)

    by_system: dict[str, list[ScoredRow]] = {}
    for i, row in enumerate(rows):
        by_system.setdefault(systems[i] if systems is not None else "", []).append(row)
    return pb.ScoreHypothesesResponse(
        scores=[_scores(row, systems[i] if systems is not None else "") for i, row in enumerate(rows)],
        overall=_means("", rows),
        per_system=[_means(s, members) for s, members in sorted(by_system.items())] if systems is not None else [],
        scores_json=json.dumps(scores_document(rows, systems), ensure_ascii=False, indent=1) + "\n",
        report_json=json.dumps(report, ensure_ascii=False, indent=1) + "\n",
        usage=pb.LLMUsage(**_total(meters)))


def _reference_section(records: M2MRecords, rows: Sequence[ScoredRow], systems: Sequence[str] | None,
                       references: Mapping[str, str], embedder: Embedder | None) -> dict[str, Any]:
    hypotheses = records.text("hypothesis")
    matched = [i for i, row in enumerate(rows) if row.paper_id in references]
    return reference_metrics_report(
        [rows[i].paper_id for i in matched], [hypotheses[i] for i in matched],
        [references[rows[i].paper_id] for i in matched], [rows[i].cbs for i in matched], embedder,
        [systems[i] for i in matched] if systems is not None else None)


def _judge_section(llm: LLM, judges: Sequence[str], records: M2MRecords, rows: Sequence[ScoredRow],
                   systems: Sequence[str], pairs: Sequence[tuple[str, str]] | None, problems: int,
                   seed: int) -> dict[str, Any]:
    answers, mean_cbs = answers_by_system(records, rows, systems)
    return pairwise_report(llm, judges, answers, mean_cbs, pairs=pairs, problems=problems, seed=seed)


def _total(meters: Sequence[MeteredLLM]) -> dict[str, Any]:
    return {"calls": sum(m.calls for m in meters), "cached_calls": sum(m.cached_calls for m in meters),
            "prompt_tokens": sum(m.prompt_tokens for m in meters),
            "completion_tokens": sum(m.completion_tokens for m in meters),
            "cost_usd": math.fsum(m.cost_usd for m in meters)}
