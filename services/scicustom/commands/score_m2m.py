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
                           (through --llm-api-base / --llm-api-key-env, cached like every LLM call)
  --judge-models M1,M2     pairwise LLM judge with swapped order over the systems of --system-column
                           (--judge-pairs A:B,C:D, --judge-problems 50, --llm-api-base, --llm-api-key-env)
"""

from __future__ import annotations

import argparse
import gc
import os
from pathlib import Path
from typing import TYPE_CHECKING

from scicustom.app.field_names import fields_renamed
from scicustom.app.scoring.m2m import M2MRequest, load_vocabulary, score_hypotheses
from scicustom.core.atomic_files import write_text_atomic
from scicustom.core.errors import InvalidInput
from scicustom.core.m2m.records import M2MRecords, records_from_csv, records_from_jsonl
from scicustom.core.m2m.scoring_options import ScoringOptions
from scicustom.core.m2m.vocabulary import M2MVocabulary

if TYPE_CHECKING:
    from scicustom.bootstrap import Context

# The use case names its parameters as ScoreHypothesesRequest does; here they are flags.
FLAGS = {f"options.{name}": f"--{name.replace('_', '-')}" for name in (
    "id_column", "group_by", "system_column", "min_group_size", "attack_sample", "attack_model", "judge_models",
    "judge_pairs", "judge_problems")}


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
    # The key itself never goes on the command line, where `ps` and shell history show it.
    parser.add_argument("--llm-api-key-env", default=None, metavar="VAR",
                        help="environment variable holding the API key for --llm-api-base")
    # Scoring alone needs no settings: they are read when an LLM or the embedder is first asked for.
    parser.set_defaults(handler=run_score_m2m, context_on_first_use=True)


def _api_key(args: argparse.Namespace) -> str | None:
    if not args.llm_api_key_env:
        return None
    key = os.environ.get(args.llm_api_key_env)
    if key is None:
        raise InvalidInput("--llm-api-key-env", f"environment variable {args.llm_api_key_env} is not set")
    return key


def run_score_m2m(args: argparse.Namespace, ctx: Context) -> int:
    # The cyclic collector would run some 80 times over the token sets and lists the metrics create,
    # none of them in a cycle: 0.2 s of the 2,645 rows. Paused for this one command (a forked child
    # inherits the pause), and back on for whatever runs next in the process.
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _score_m2m(args, ctx)
    finally:
        if collecting:
            gc.enable()


def _score_m2m(args: argparse.Namespace, ctx: Context) -> int:
    options = ScoringOptions.corrected() if args.corrected else ScoringOptions(
        missing_as_empty=args.missing_as_empty, word_bounded_terms=args.word_bounded_terms,
        stable_vocabulary=args.stable_vocabulary, unicode_units=args.unicode_units)
    wants_report = any((args.taxonomy, args.sensitivity, args.reference_file, args.attacks, args.judge_models))
    if wants_report and args.report is None:
        raise InvalidInput("report", "--taxonomy, --sensitivity, --reference-file, --attacks and --judge-models "
                                     "need --report FILE")
    vocabulary = load_vocabulary()
    records = read_records(args.input, vocabulary, options)
    judges = [m.strip() for m in args.judge_models.split(",") if m.strip()] if args.judge_models else []
    pairs = args.judge_pairs.split(",") if args.judge_pairs else []
    request = M2MRequest(
        records=records, scoring=options, id_column=args.id_column, group_by=args.group_by,
        system_column=args.system_column, min_group_size=args.min_group_size, taxonomy=args.taxonomy,
        sensitivity=args.sensitivity,
        references=read_references(args.reference_file, vocabulary, options) if args.reference_file else None,
        reference_embeddings=not args.no_embeddings, attacks=args.attacks, attack_sample=args.attack_sample,
        attack_model=args.attack_model or "", seed=args.seed, judge_models=judges, judge_pairs=pairs,
        judge_problems=args.judge_problems, two_processes=True)
    flags = {**FLAGS, **{f"options.judge_models[{k}]": "--judge-models" for k in range(len(judges))},
             **{f"options.judge_pairs[{k}]": "--judge-pairs" for k in range(len(pairs))}}
    with fields_renamed(flags):
        scores = score_hypotheses(request, vocabulary, lambda: ctx.llm_at(args.llm_api_base, _api_key(args)),
                                  lambda: ctx.embedder)
    write_text_atomic(args.output, scores.scores_json())
    if wants_report:
        write_text_atomic(args.report, scores.report_json())
    return 0


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


def read_references(path: Path, vocabulary: M2MVocabulary, options: ScoringOptions) -> dict[str, str]:
    """The literature hypotheses of --reference-file, by paper_id."""
    literature = read_records(path, vocabulary, options)
    if not literature.has("paper_id") or not literature.has("hypothesis"):
        raise InvalidInput("reference_file", "needs paper_id and hypothesis columns")
    return dict(zip(literature.text("paper_id"), literature.text("hypothesis"), strict=True))
