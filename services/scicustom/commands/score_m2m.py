"""`scicustom score m2m`: the Matter to Mechanism metrics (rcf, hpa, msi, sns, ip, pdq, cbs) of a file of
hypotheses, and optional validation reports.

    scicustom score m2m --input FILE.csv|.jsonl --output SCORES.json [--group-by COLUMN]

Output: `{paper_id: {"rcf", "hpa", "msi", "sns", "ip", "pdq", "cbs", "sub": {component scores}}}`; with
`--system-column COL` (several systems answering the same problems) `{system: {paper_id: {...}}}`.
Ids must be unique (within a system); `--id-column` picks another id column.

Scoring options:
  --group-by COLUMN        sns once per group of rows sharing COLUMN (default: once over the whole input);
                           groups under --min-group-size rows (default 5, the reference's) get no sns
  --missing-as-empty       an empty problem_core / target_property is "" (reference: the string "nan")
  --word-bounded-terms     vocabulary terms match whole words (reference: substrings, "tem" in "system")
  --stable-vocabulary      TF-IDF vocabulary ties broken alphabetically (reference: string-hash order)
  --unicode-units          "μm" (Greek mu) and "℃" count as units (reference: only "µm" and "°c")
  --corrected              all four corrections above

Reports, written together to --report REPORT.json (each section only when asked for):
  --taxonomy               error taxonomy of Table 4 (per system with --system-column)
  --sensitivity            cbs under alternative weight schemes, Kendall tau vs the default ranking
  --reference-file FILE    BLEU, ROUGE-L and MiniLM cosine of each hypothesis against the literature
                           hypothesis of the same paper_id in FILE (--no-embeddings skips the cosine)
  --attacks                the three gaming attacks on --attack-sample rows (default 75, --seed 42) and
                           the metric deltas of Table 7; templates, or written by --attack-model MODEL
                           (through --llm-api-base / --llm-api-key, cached like every LLM call)
  --judge-models M1,M2     pairwise LLM judge with swapped order over the systems of --system-column
                           (--judge-pairs A:B,C:D, --judge-problems 50, --llm-api-base, --llm-api-key)
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scicustom.config import RESOURCES, Settings
from scicustom.core.errors import InvalidInput
from scicustom.core.m2m.gaming_attacks import gaming_report
from scicustom.core.m2m.pairwise_judge import answers_by_system, pairwise_report
from scicustom.core.m2m.records import M2MRecords, records_from_csv, records_from_jsonl
from scicustom.core.m2m.reference_metrics import reference_metrics_report
from scicustom.core.m2m.scoring import ScoredRow, ids_must_be_unique, score_records
from scicustom.core.m2m.scoring_options import ScoringOptions
from scicustom.core.m2m.sensitivity import sensitivity_report
from scicustom.core.m2m.taxonomy import taxonomy_report
from scicustom.core.m2m.vocabulary import M2MVocabulary, parse_vocabulary

if TYPE_CHECKING:
    from scicustom.adapters.litellm_llm import LiteLLMAdapter
    from scicustom.bootstrap import Context

VOCABULARY_FILE = RESOURCES / "m2m_vocabulary.json"


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    head, _, rest = (__doc__ or "").partition("\n\n")
    parser = sub.add_parser("m2m", help="Matter to Mechanism hypothesis metrics (rcf, hpa, msi, sns, ip, pdq, cbs)",
                            description=head, epilog=rest, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--input", required=True, type=Path, help="hypotheses, .csv or .jsonl")
    parser.add_argument("--output", required=True, type=Path, help="scores, JSON")
    parser.add_argument("--group-by", default=None, help="compute sns within groups of this column")
    parser.add_argument("--min-group-size", type=int, default=5, help="smallest --group-by group given sns")
    parser.add_argument("--id-column", default="paper_id", help="column that names each row")
    parser.add_argument("--system-column", default=None, help="column naming the system that wrote each row")
    parser.add_argument("--missing-as-empty", action="store_true", help="a missing value is '' (not 'nan')")
    parser.add_argument("--word-bounded-terms", action="store_true", help="terms match whole words only")
    parser.add_argument("--stable-vocabulary", action="store_true", help="TF-IDF ties broken alphabetically")
    parser.add_argument("--unicode-units", action="store_true", help="Greek mu and the ℃ sign count as units")
    parser.add_argument("--corrected", action="store_true", help="all corrections of the reference behaviour")
    parser.add_argument("--report", type=Path, default=None, help="where the requested reports go, JSON")
    parser.add_argument("--taxonomy", action="store_true", help="error taxonomy (Table 4)")
    parser.add_argument("--sensitivity", action="store_true", help="cbs weight sensitivity (Table 8)")
    parser.add_argument("--reference-file", type=Path, default=None, help="literature hypotheses by paper_id")
    parser.add_argument("--no-embeddings", action="store_true", help="reference metrics without the cosine")
    parser.add_argument("--attacks", action="store_true", help="gaming attacks and their deltas (Table 7)")
    parser.add_argument("--attack-sample", type=int, default=75, help="rows attacked (default 75)")
    parser.add_argument("--attack-model", default=None, help="let this LLM write the attacks (default: templates)")
    parser.add_argument("--seed", type=int, default=42, help="seed of the attack and judge samples")
    parser.add_argument("--judge-models", default=None, help="comma-separated judge models (litellm names)")
    parser.add_argument("--judge-pairs", default=None, help="comma-separated SYSTEM_A:SYSTEM_B (default: all)")
    parser.add_argument("--judge-problems", type=int, default=50, help="problems judged per pair (default 50)")
    parser.add_argument("--llm-api-base", default=None, help="OpenAI-compatible server for the judges")
    parser.add_argument("--llm-api-key", default=None, help="API key for --llm-api-base")
    parser.set_defaults(handler=run_score_m2m)


def run_score_m2m(args: argparse.Namespace, ctx: Context) -> int:
    options = ScoringOptions.corrected() if args.corrected else ScoringOptions(
        missing_as_empty=args.missing_as_empty, word_bounded_terms=args.word_bounded_terms,
        stable_vocabulary=args.stable_vocabulary, unicode_units=args.unicode_units)
    wants_report = any((args.taxonomy, args.sensitivity, args.reference_file, args.attacks, args.judge_models))
    if wants_report and args.report is None:
        raise InvalidInput("report", "--taxonomy, --sensitivity, --reference-file, --attacks and --judge-models "
                                     "need --report FILE")
    if args.judge_models and not args.system_column:
        raise InvalidInput("judge_models", "the pairwise judge compares systems: give --system-column")
    vocabulary = load_vocabulary()
    records = read_records(args.input, vocabulary, options)
    if args.system_column and not records.has(args.system_column):
        raise InvalidInput("system_column", f"no column {args.system_column!r} in the input")
    rows = score_records(records, vocabulary, options, group_by=args.group_by,
                         min_group_size=args.min_group_size, id_column=args.id_column)
    systems = records.text(args.system_column) if args.system_column else None
    document = scores_document(rows, systems)
    report = build_report(args, records, rows, systems, vocabulary, options) if wants_report else None
    write_json(args.output, document)
    if report is not None:
        write_json(args.report, report)
    return 0


def load_vocabulary(path: Path = VOCABULARY_FILE) -> M2MVocabulary:
    return parse_vocabulary(json.loads(path.read_text(encoding="utf-8")))


def read_records(path: Path, vocabulary: M2MVocabulary, options: ScoringOptions) -> M2MRecords:
    suffix = path.suffix.lower()
    if suffix not in (".csv", ".jsonl"):
        raise InvalidInput("input", f"{path}: expected a .csv or .jsonl file")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InvalidInput("input", f"{path}: {exc.strerror or exc}") from exc
    reader = records_from_csv if suffix == ".csv" else records_from_jsonl
    return reader(data, vocabulary.text_columns, missing_as_empty=options.missing_as_empty)


def scores_document(rows: Sequence[ScoredRow], systems: Sequence[str] | None) -> dict[str, Any]:
    if systems is None:
        ids_must_be_unique(list(rows), "give --id-column a unique column, or --system-column for several systems")
        return {row.paper_id: row.as_json() for row in rows}
    by_system: dict[str, list[ScoredRow]] = {}
    for row, system in zip(rows, systems, strict=True):
        by_system.setdefault(system, []).append(row)
    for members in by_system.values():
        ids_must_be_unique(members, "ids must be unique within each system")
    return {system: {r.paper_id: r.as_json() for r in members} for system, members in by_system.items()}


def build_report(args: argparse.Namespace, records: M2MRecords, rows: Sequence[ScoredRow],
                 systems: Sequence[str] | None, vocabulary: M2MVocabulary, options: ScoringOptions) -> dict[str, Any]:
    report: dict[str, Any] = {}
    if args.taxonomy:
        report["taxonomy"] = taxonomy_report(rows, systems)
    if args.sensitivity:
        report["sensitivity"] = sensitivity_report(rows, systems)
    if args.reference_file:
        report["reference_metrics"] = reference_section(args, records, rows, systems, vocabulary, options)
    if args.attacks:
        llm = build_llm(args) if args.attack_model else None
        report["attacks"] = gaming_report(records, rows, vocabulary, options, sample=args.attack_sample,
                                          seed=args.seed, id_column=args.id_column, llm=llm,
                                          model=args.attack_model or "")
        if llm is not None:
            report["attacks"]["usage"] = usage_totals(llm)
    if args.judge_models and systems is not None:
        report["pairwise_judge"] = judge_section(args, records, rows, systems)
    return report


def reference_section(args: argparse.Namespace, records: M2MRecords, rows: Sequence[ScoredRow],
                      systems: Sequence[str] | None, vocabulary: M2MVocabulary,
                      options: ScoringOptions) -> dict[str, Any]:
    literature = read_records(args.reference_file, vocabulary, options)
    if not literature.has("paper_id") or not literature.has("hypothesis"):
        raise InvalidInput("reference_file", "needs paper_id and hypothesis columns")
    references = dict(zip(literature.text("paper_id"), literature.text("hypothesis"), strict=True))
    hypotheses = records.text("hypothesis")
    matched = [i for i, row in enumerate(rows) if row.paper_id in references]
    embedder = None
    if not args.no_embeddings:
        from scicustom.adapters.minilm_embedder import MiniLMEmbedder  # loads torch: only when asked for

        embedder = MiniLMEmbedder(batch_size=Settings().embed_batch)
    return reference_metrics_report(
        [rows[i].paper_id for i in matched], [hypotheses[i] for i in matched],
        [references[rows[i].paper_id] for i in matched], [rows[i].cbs for i in matched], embedder,
        [systems[i] for i in matched] if systems is not None else None)


def build_llm(args: argparse.Namespace) -> LiteLLMAdapter:
    from scicustom.adapters.litellm_llm import LiteLLMAdapter
    from scicustom.adapters.llm_response_cache import LLMResponseCache

    settings = Settings()
    return LiteLLMAdapter(LLMResponseCache(settings.llm_cache_path / "responses.sqlite"),
                          max_retries=settings.llm_max_retries,
                          requests_per_minute=settings.llm_requests_per_minute, timeout_s=settings.llm_timeout_s,
                          api_base=args.llm_api_base, api_key=args.llm_api_key)


def usage_totals(llm: LiteLLMAdapter) -> dict[str, Any]:
    usage = llm.usage
    return {"calls": usage.calls, "cached_calls": usage.cached_calls, "prompt_tokens": usage.prompt_tokens,
            "completion_tokens": usage.completion_tokens, "cost_usd": round(usage.cost_usd, 6)}


def judge_section(args: argparse.Namespace, records: M2MRecords, rows: Sequence[ScoredRow],
                  systems: Sequence[str]) -> dict[str, Any]:
    llm = build_llm(args)
    answers, mean_cbs = answers_by_system(records, rows, systems)
    pairs = parse_pairs(args.judge_pairs, answers) if args.judge_pairs else None
    judges = [m.strip() for m in args.judge_models.split(",") if m.strip()]
    report = pairwise_report(llm, judges, answers, mean_cbs, pairs=pairs, problems=args.judge_problems,
                             seed=args.seed)
    report["usage"] = usage_totals(llm)
    return report


def parse_pairs(text: str, answers: Mapping[str, Any]) -> list[tuple[str, str]]:
    pairs = []
    for item in text.split(","):
        left, sep, right = item.strip().partition(":")
        if not sep or left not in answers or right not in answers:
            raise InvalidInput("judge_pairs", f"{item.strip()!r} is not SYSTEM_A:SYSTEM_B of known systems "
                                              f"({', '.join(sorted(answers))})")
        pairs.append((left, right))
    return pairs


def write_json(path: Path, document: Mapping[str, Any]) -> None:
    """Write atomically: a reader sees the old file or the whole new one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(handle, "w", encoding="utf-8") as stream:
            json.dump(document, stream, ensure_ascii=False, indent=1)
            stream.write("\n")
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
