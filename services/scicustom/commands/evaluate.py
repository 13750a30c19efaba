"""`scicustom evaluate`: run models on a built benchmark; accuracy with a bootstrap 95% interval.

The models file format is documented in `scicustom.core.evaluation.model_spec`. A rerun (after a
kill, or to add models) resumes from DIR/progress and the LLM response cache: nothing answered
before is asked again.
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from scicustom.app.evaluation import (
    EvaluationRequest,
    build_answerers,
    evaluate_model,
    write_evaluation,
)
from scicustom.core.errors import InvalidInput
from scicustom.core.evaluation.benchmark_lines import MCQItem, parse_benchmark
from scicustom.core.evaluation.model_spec import ModelsFile, parse_models_file
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
    parser.set_defaults(handler=_evaluate)


def _read_benchmark(path: Path) -> tuple[list[MCQItem], str]:
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise InvalidInput("--benchmark", f"cannot read {path}: {exc.strerror}") from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidInput("--benchmark", f"{path} is not UTF-8") from None
    return parse_benchmark(text.splitlines(), source=str(path)), hashlib.sha256(data).hexdigest()


def _read_models(path: Path) -> ModelsFile:
    try:
        document = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InvalidInput("--models", f"cannot read {path}: {exc.strerror}") from None
    except yaml.YAMLError as exc:
        raise InvalidInput("--models", f"{path} is not valid YAML: {str(exc).splitlines()[0]}") from None
    return parse_models_file(document, source=str(path))


def _evaluate(args: argparse.Namespace, ctx: Context) -> int:
    items, benchmark_sha = _read_benchmark(args.benchmark)
    request = EvaluationRequest(items=items, benchmark_path=str(args.benchmark), benchmark_sha256=benchmark_sha,
                                models=_read_models(args.models), concurrency=args.concurrency,
                                bootstrap=args.bootstrap, seed=args.seed)
    answerers, clients = build_answerers(request.models, ctx.provider_llm, ctx.local_mcq_answerer,
                                         request.concurrency)
    outputs = ctx.evaluation_outputs(args.out)
    results: dict[str, Any] = {}
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
        if run.errors:
            failed[answerer.name] = len(run.errors)
        print(f"{answerer.name}: accuracy {score.accuracy:.4f} [{score.ci_low:.4f}, {score.ci_high:.4f}] "
              f"n={score.n} unparsed={score.n_unparsed} errors={score.n_errors} "
              f"(resumed {run.resumed}, answered {run.answered})")

    write_evaluation(request, results, outputs)
    usage = LLMUsage.total(client.usage for client in clients.values())
    print(f"LLM calls this run: {usage.calls} new, {usage.cached_calls} from cache, ${usage.cost_usd:.4f}; "
          f"wrote {args.out}")
    if failed:
        listed = ", ".join(f"{name} ({n})" for name, n in failed.items())
        print(f"scicustom: calls failed after retries for {listed}; they count as wrong; "
              f"rerun to retry only those", file=sys.stderr)
        return EXIT_CALLS_FAILED
    return 0


def _progress_bar(name: str, total: int) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, desc=name, unit="item", disable=not sys.stderr.isatty(), leave=False)
