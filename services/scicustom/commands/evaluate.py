"""`scicustom evaluate`: run models on a built benchmark; accuracy with a bootstrap 95% interval.

The models file format is documented in `scicustom.core.evaluation.model_spec`. A rerun (after a
kill, or to add models) resumes from DIR/progress and the LLM response cache: nothing answered
before is asked again. `--report FILE` also writes a self-contained HTML report (accuracy with
intervals, accuracy per knowledge unit, agreement with `--reference`).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from scicustom.app.evaluation import (
    EvaluationRequest,
    build_answerers,
    evaluate_model,
    write_evaluation,
)
from scicustom.app.report.evaluation_report import EvaluationReport, render_evaluation_report
from scicustom.core.atomic_files import write_text_atomic
from scicustom.core.errors import InvalidInput
from scicustom.core.evaluation.benchmark_lines import MCQItem, parse_benchmark
from scicustom.core.evaluation.model_spec import ModelsFile, parse_models_file
from scicustom.core.evaluation.ranking import compare_rankings, read_ranking
from scicustom.core.evaluation.unit_breakdown import item_units
from scicustom.core.jsonl import jsonl_lines, parse_jsonl
from scicustom.core.llm_usage import LLMUsage

if TYPE_CHECKING:
    from scicustom.bootstrap import Context

EXIT_CALLS_FAILED = 1
EXIT_INTERRUPTED = 130


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser(
        "evaluate", help="run models on a benchmark and rank them by accuracy",
        description="Run every model of --models on every MCQ of --benchmark. Writes DIR/results.json, "
                    "DIR/ranking.json and DIR/responses/<model>.jsonl; resumes from DIR/progress.")
    parser.add_argument("--benchmark", type=Path, required=True,
                        help="benchmark JSONL from `scicustom build`")
    parser.add_argument("--models", type=Path, required=True,
                        help="models YAML (format: scicustom.core.evaluation.model_spec)")
    parser.add_argument("--out", type=Path, required=True, help="output folder")
    parser.add_argument("--concurrency", type=int, default=4,
                        help="parallel requests per chat model (models run one after another)")
    parser.add_argument("--bootstrap", type=int, default=1000,
                        help="bootstrap resamples for the 95%% interval")
    parser.add_argument("--seed", type=int, default=0, help="bootstrap seed")
    parser.add_argument("--report", type=Path, default=None, metavar="FILE",
                        help="also write a self-contained HTML report: accuracy with 95%% intervals, accuracy "
                             "per knowledge unit, agreement with --reference")
    parser.add_argument("--reference", type=Path, default=None, metavar="RANKING.json",
                        help="a reference ranking (ranking.json or results.json of evaluate, or {\"model\": score}) "
                             "to report Spearman and Kendall correlations against")
    parser.set_defaults(handler=_evaluate)


def _read_benchmark(path: Path) -> tuple[list[MCQItem], str, dict[str, tuple[str, ...]]]:
    """The items, the sha256 of the file, and each item's knowledge units (its provenance)."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InvalidInput("--benchmark", f"cannot read {path}: {exc.strerror}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidInput("--benchmark", f"{path} is not UTF-8") from None
    items = parse_benchmark(jsonl_lines(text), source=str(path))
    units = item_units(row for _, row in parse_jsonl(jsonl_lines(text), str(path)))
    return items, hashlib.sha256(data).hexdigest(), units


def _read_reference(path: Path | None, models: ModelsFile) -> dict[str, float] | None:
    """Read before any model runs, so a reference that cannot be compared costs no call."""
    if path is None:
        return None
    try:
        document = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InvalidInput("--reference", f"cannot read {path}: {exc.strerror}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InvalidInput("--reference", f"{path} is not JSON: {exc}") from None
    reference = read_ranking(document, f"--reference {path}")
    common = sorted(set(reference) & {spec.name for spec in models.models})
    if len(common) < 2:
        raise InvalidInput("--reference", f"{path} ranks {len(common)} of the evaluated models; "
                           "rank correlations need at least 2")
    return reference


def _read_models(path: Path) -> ModelsFile:
    try:
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InvalidInput("--models", f"cannot read {path}: {exc.strerror}") from None
    except yaml.YAMLError as exc:
        raise InvalidInput("--models", f"{path} is not valid YAML: {str(exc).splitlines()[0]}") from None
    return parse_models_file(document, source=str(path))


def _evaluate(args: argparse.Namespace, ctx: Context) -> int:
    items, benchmark_sha, units = _read_benchmark(args.benchmark)
    request = EvaluationRequest(items=items, benchmark_path=str(args.benchmark), benchmark_sha256=benchmark_sha,
                                models=_read_models(args.models), concurrency=args.concurrency,
                                bootstrap=args.bootstrap, seed=args.seed)
    reference = _read_reference(args.reference, request.models)
    answerers, clients = build_answerers(request.models, ctx.provider_llm, ctx.local_mcq_answerer,
                                         request.concurrency)
    outputs = ctx.evaluation_outputs(args.out)
    results: dict[str, Any] = {}
    outcomes: dict[str, dict[str, bool]] = {}
    failed: dict[str, int] = {}
    for answerer in answerers:
        try:
            with _progress_bar(answerer.name, len(items)) as bar:
                evaluation = evaluate_model(request, answerer, outputs, on_answer=bar.update)
        except KeyboardInterrupt:
            print(f"scicustom: interrupted during {answerer.name}; progress is saved, rerun to resume",
                  file=sys.stderr)
            return EXIT_INTERRUPTED
        results[answerer.name] = evaluation.record
        run, score = evaluation.run, evaluation.score
        outcomes[answerer.name] = {r.item_id: r.correct for r in run.responses}
        if run.errors:
            failed[answerer.name] = len(run.errors)
        print(f"{answerer.name}: accuracy {score.accuracy:.4f} [{score.ci_low:.4f}, {score.ci_high:.4f}] "
              f"n={score.n} unparsed={score.n_unparsed} errors={score.n_errors} "
              f"(resumed {run.resumed}, answered {run.answered})")

    document = write_evaluation(request, results, outputs)
    if reference is not None:
        agreement = compare_rankings(reference, {name: r["accuracy"] for name, r in results.items()})
        print(f"against {args.reference}: Spearman rho {agreement.spearman}, Kendall tau-b "
              f"{agreement.kendall_tau_b} over {len(agreement.models)} models")
    if args.report is not None:
        _write_report(args.report, document, outcomes, units, reference, args.reference)
    usage = LLMUsage.total(client.usage for client in clients.values())
    print(f"LLM calls this run: {usage.calls} new, {usage.cached_calls} from cache, ${usage.cost_usd:.4f}; "
          f"wrote {args.out}")
    if failed:
        listed = ", ".join(f"{name} ({n})" for name, n in failed.items())
        print(f"scicustom: calls failed after retries for {listed}; they count as wrong; "
              f"rerun to retry only those", file=sys.stderr)
        return EXIT_CALLS_FAILED
    return 0


def _write_report(path: Path, results: Mapping[str, Any], outcomes: Mapping[str, Mapping[str, bool]],
                  units: Mapping[str, tuple[str, ...]], reference: Mapping[str, float] | None,
                  reference_path: Path | None) -> None:
    write_text_atomic(path, render_evaluation_report(EvaluationReport(
        results, outcomes, units, reference, str(reference_path) if reference_path else "")))
    print(f"report: {path}")


def _progress_bar(name: str, total: int) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, desc=name, unit="item", disable=not sys.stderr.isatty(), leave=False)
