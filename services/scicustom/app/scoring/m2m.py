"""Score hypotheses with the Matter to Mechanism metrics (rcf, hpa, msi, sns, ip, pdq, cbs) and the
reports asked for: `scicustom score m2m` and ScorerService.ScoreHypotheses.

The two documents (scores and report) are the same text on both paths: the CLI writes them, the
service returns them as `scores_json` / `report_json`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scicustom.app.field_checks import at_most
from scicustom.app.scoring.forked_metrics import metric_columns_on_two_cores
from scicustom.app.scoring.scores_text import scores_text
from scicustom.core.errors import InvalidInput
from scicustom.core.indented_json import indented_json
from scicustom.core.m2m.records import M2MRecords
from scicustom.core.m2m.scoring import MIN_GROUP_SIZE, ScoredRow, score_records, sns_metric_columns
from scicustom.core.m2m.scoring_options import PARITY, ScoringOptions
from scicustom.core.m2m.vocabulary import M2MVocabulary, parse_vocabulary
from scicustom.resource_files import RESOURCES

# The reports' modules and the LLM ports are imported where a report needs them: `scicustom score m2m`
# without reports spends no start-up time on them (issue 17).
if TYPE_CHECKING:
    from scicustom.core.llm_usage import LLMUsage, MeteredLLM
    from scicustom.ports import LLM, Embedder

VOCABULARY_FILE = RESOURCES / "m2m_vocabulary.json"
# The named fields of a hypothesis record (the Hypothesis message); any other column is one of its `columns`.
RECORD_FIELDS = ("paper_id", "problem_statement", "problem_core", "hypothesis", "reasoning_process",
                 "mechanism_or_rationale", "intervention_or_solution", "claimed_outcome", "target_property",
                 "novelty_axis", "battery_system", "component", "failure_mode_or_limitation", "keywords",
                 "evidence_strength", "problem_type_broad", "problem_type_fine")
MAX_JUDGES = 4
MAX_PAIRS = 50
MAX_MODEL_CHARS = 200
MAX_MIN_GROUP_SIZE = 100000
MAX_ATTACK_SAMPLE = 10000
MAX_JUDGE_PROBLEMS = 1000
DEFAULT_SEED = 42
DEFAULT_ATTACK_SAMPLE = 75
DEFAULT_JUDGE_PROBLEMS = 50


def load_vocabulary(path: Path = VOCABULARY_FILE) -> M2MVocabulary:
    return parse_vocabulary(json.loads(path.read_text(encoding="utf-8")))


@dataclass(frozen=True)
class M2MRequest:
    """The records to score and the reports wanted; fields as in ScoreHypothesesRequest's options."""

    records: M2MRecords
    scoring: ScoringOptions = PARITY
    id_column: str | None = None  # None: paper_id
    group_by: str | None = None  # sns once per group of rows sharing this column
    system_column: str | None = None  # several systems answering the same problems
    min_group_size: int = MIN_GROUP_SIZE
    taxonomy: bool = False
    sensitivity: bool = False
    references: Mapping[str, str] | None = None  # paper_id -> literature hypothesis
    reference_embeddings: bool = False
    attacks: bool = False
    attack_sample: int = DEFAULT_ATTACK_SAMPLE
    attack_model: str = ""  # "": template attacks
    seed: int = DEFAULT_SEED
    judge_models: Sequence[str] = ()
    judge_pairs: Sequence[str] = ()  # "SYSTEM_A:SYSTEM_B"; none: every pair
    judge_problems: int = DEFAULT_JUDGE_PROBLEMS
    # Score the metrics of a large input in two processes (fork): for the CLI, never a server.
    two_processes: bool = False


@dataclass(frozen=True)
class M2MScores:
    rows: list[ScoredRow]
    systems: tuple[str, ...] | None  # each row's system, with a system_column
    document: dict[str, Any]  # {id: scores}, or {system: {id: scores}}
    report: dict[str, Any]  # the requested sections only
    meters: tuple[MeteredLLM, ...] = ()  # the LLMs of the request's reports

    @property
    def usage(self) -> LLMUsage:
        """Every LLM call of the request."""
        from scicustom.core.llm_usage import LLMUsage

        return LLMUsage.total(m.usage for m in self.meters)

    def scores_json(self) -> str:
        return scores_text(self.document) + "\n"

    def report_json(self) -> str:
        return _json(self.report)


def _json(document: Mapping[str, Any]) -> str:
    return indented_json(document, indent=1) + "\n"  # json.dumps(ensure_ascii=False, indent=1), faster


def score_hypotheses(request: M2MRequest, vocabulary: M2MVocabulary, llm: Callable[[], LLM],
                     embedder: Callable[[], Embedder]) -> M2MScores:
    """`llm` and `embedder` are called only when a report needs them."""
    records = request.records
    id_column = request.id_column or "paper_id"
    judges = _checked_parameters(request)
    _check_columns(request, id_column)
    systems = records.text(request.system_column) if request.system_column else None
    _check_unique_ids(records, id_column, systems)
    pairs = _judge_pairs(request.judge_pairs, set(systems)) if systems is not None else None
    forked = None
    if request.two_processes:
        forked = metric_columns_on_two_cores(
            records, vocabulary, request.scoring,
            lambda: sns_metric_columns(records, vocabulary, request.scoring, request.group_by, request.min_group_size))
    row_columns, sns_columns = forked if forked is not None else (None, None)
    rows = score_records(records, vocabulary, request.scoring, group_by=request.group_by,
                         min_group_size=request.min_group_size, id_column=id_column, row_columns=row_columns,
                         sns_columns=sns_columns)

    report: dict[str, Any] = {}
    meters: list[MeteredLLM] = []
    if request.taxonomy:
        from scicustom.core.m2m.taxonomy import taxonomy_report

        report["taxonomy"] = taxonomy_report(rows, systems)
    if request.sensitivity:
        from scicustom.core.m2m.sensitivity import sensitivity_report

        report["sensitivity"] = sensitivity_report(rows, systems)
    if request.references:
        report["reference_metrics"] = _reference_section(records, rows, systems, request.references,
                                                         embedder() if request.reference_embeddings else None)
    if request.attacks:
        from scicustom.core.llm_usage import MeteredLLM
        from scicustom.core.m2m.gaming_attacks import gaming_report

        attack_llm = MeteredLLM(llm()) if request.attack_model else None
        report["attacks"] = gaming_report(records, rows, vocabulary, request.scoring, sample=request.attack_sample,
                                          seed=request.seed, id_column=id_column, llm=attack_llm,
                                          model=request.attack_model)
        if attack_llm is not None:
            report["attacks"]["usage"] = attack_llm.usage.summary()
            meters.append(attack_llm)
    if judges and systems is not None:
        from scicustom.core.llm_usage import MeteredLLM
        from scicustom.core.m2m.pairwise_judge import answers_by_system, pairwise_report

        judge_llm = MeteredLLM(llm())
        answers, mean_cbs = answers_by_system(records, rows, systems)
        report["pairwise_judge"] = pairwise_report(judge_llm, judges, answers, mean_cbs, pairs=pairs,
                                                   problems=request.judge_problems, seed=request.seed)
        report["pairwise_judge"]["usage"] = judge_llm.usage.summary()
        meters.append(judge_llm)
    return M2MScores(rows=rows, systems=systems, document=scores_document(rows, systems), report=report,
                     meters=tuple(meters))


def scores_document(rows: Sequence[ScoredRow], systems: Sequence[str] | None) -> dict[str, Any]:
    if systems is None:
        return {row.paper_id: row.as_json() for row in rows}
    by_system: dict[str, dict[str, Any]] = {}
    for row, system in zip(rows, systems, strict=True):
        by_system.setdefault(system, {})[row.paper_id] = row.as_json()
    return by_system


def record_path(index: int, column: str) -> str:
    """The request path of a column of records[index]: a named field or one of its `columns`."""
    return f"records[{index}].{column}" if column in RECORD_FIELDS else f"records[{index}].columns[{column!r}]"


def _checked_parameters(request: M2MRequest) -> list[str]:
    """The judge models, stripped, once every parameter is within its limits."""
    at_most(request.min_group_size, "options.min_group_size", MAX_MIN_GROUP_SIZE)
    models = request.judge_models
    if len(models) > MAX_JUDGES:
        raise InvalidInput("options.judge_models", f"has {len(models)} entries, above the limit {MAX_JUDGES}")
    for k, model in enumerate(models):
        if not model.strip() or len(model) > MAX_MODEL_CHARS:
            raise InvalidInput(f"options.judge_models[{k}]", f"needs 1..{MAX_MODEL_CHARS} characters")
    if models and not request.system_column:
        raise InvalidInput("options.judge_models", "the pairwise judge compares systems: give a system_column")
    if len(request.attack_model) > MAX_MODEL_CHARS:
        raise InvalidInput("options.attack_model", f"has more than {MAX_MODEL_CHARS} characters")
    if request.attacks:
        at_most(request.attack_sample, "options.attack_sample", MAX_ATTACK_SAMPLE)
    if models:
        at_most(request.judge_problems, "options.judge_problems", MAX_JUDGE_PROBLEMS)
    return [m.strip() for m in models]


def _check_columns(request: M2MRequest, id_column: str) -> None:
    records = request.records
    if not records.has("hypothesis"):
        raise InvalidInput("records.hypothesis", "is unset in every record")
    if not records.has(id_column):
        raise InvalidInput("options.id_column" if request.id_column else "records.paper_id",
                           f"no record has a column {id_column!r}")
    for name in ("group_by", "system_column"):
        column = getattr(request, name)
        if column and not records.has(column):
            raise InvalidInput(f"options.{name}", f"no record has a column {column!r}")


def _check_unique_ids(records: M2MRecords, id_column: str, systems: Sequence[str] | None) -> None:
    """Ids unique (within each system): the scores document is keyed by them."""
    first: dict[tuple[str, str], int] = {}
    for i, item_id in enumerate(records.text(id_column)):
        key = (systems[i] if systems is not None else "", item_id)
        if key in first:
            within = f" of system {key[0]!r}" if systems is not None else ""
            raise InvalidInput(record_path(i, id_column),
                               f"{item_id!r} repeats records[{first[key]}]{within}; ids must be unique (give a "
                               "system_column for several systems)")
        first[key] = i


def _judge_pairs(texts: Sequence[str], systems: set[str]) -> list[tuple[str, str]] | None:
    if not texts:
        return None
    if len(texts) > MAX_PAIRS:
        raise InvalidInput("options.judge_pairs", f"has {len(texts)} entries, above the limit {MAX_PAIRS}")
    pairs = []
    for k, text in enumerate(texts):
        left, sep, right = text.strip().partition(":")
        if not sep or left not in systems or right not in systems:
            raise InvalidInput(f"options.judge_pairs[{k}]", f"{text.strip()!r} is not SYSTEM_A:SYSTEM_B of known "
                                                            f"systems ({', '.join(sorted(systems))})")
        pairs.append((left, right))
    return pairs


def _reference_section(records: M2MRecords, rows: Sequence[ScoredRow], systems: Sequence[str] | None,
                       references: Mapping[str, str], embedder: Embedder | None) -> dict[str, Any]:
    from scicustom.core.m2m.reference_metrics import reference_metrics_report

    hypotheses = records.text("hypothesis")
    matched = [i for i, row in enumerate(rows) if row.paper_id in references]
    return reference_metrics_report(
        [rows[i].paper_id for i in matched], [hypotheses[i] for i in matched],
        [references[rows[i].paper_id] for i in matched], [rows[i].cbs for i in matched], embedder,
        [systems[i] for i in matched] if systems is not None else None)
