"""`scicustom evaluate`: run models on a built benchmark; accuracy with a bootstrap 95% interval.

The models file format is documented in `scicustom.core.evaluation.model_spec`. A rerun (after a
kill, or to add models) resumes from DIR/progress and the LLM response cache: nothing answered
before is asked again.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from scicustom.config import Settings
from scicustom.core.errors import InvalidInput
from scicustom.core.evaluation.accuracy import score_run
from scicustom.core.evaluation.benchmark_lines import MCQItem, parse_benchmark
from scicustom.core.evaluation.model_spec import (
    ChatModelSpec,
    LocalModelSpec,
    ModelsFile,
    ProviderSpec,
    parse_models_file,
)
from scicustom.core.evaluation.ranking import ranking_document
from scicustom.core.evaluation.responses import MCQAnswerer
from scicustom.core.evaluation.run import run_model

if TYPE_CHECKING:
    from scicustom.bootstrap import Context

CONFIDENCE = 0.95
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


def _api_key(provider: ProviderSpec) -> str | None:
    if provider.api_key_env is None:
        return provider.api_key
    value = os.environ.get(provider.api_key_env)
    if not value:
        raise InvalidInput(f"providers.{provider.name}.api_key_env",
                           f"environment variable {provider.api_key_env} is not set")
    return value


def _local_loader(spec: LocalModelSpec, settings: Settings) -> Callable[[], tuple[Any, Any]]:
    def load() -> tuple[Any, Any]:
        if spec.path is not None:
            from scicustom.adapters.causal_lm_mcq_scorer import load_local_causal_lm

            return load_local_causal_lm(Path(spec.path))
        from scicustom.adapters.packaged_models import load_smollm

        return load_smollm(settings.model_cache)

    return load


def build_answerers(models: ModelsFile, settings: Settings,
                    concurrency: int) -> tuple[list[MCQAnswerer], dict[str, Any]]:
    """One LiteLLMAdapter per provider, so the provider's models share one rate limit, all over
    one response cache; local models load on first use. Returns the answerers and the LLM
    adapters by provider name. (The composition for this command; bootstrap.Context builds
    the single-adapter LLM the other commands use.)"""
    from scicustom.adapters.causal_lm_mcq_scorer import CausalLMMCQScorer
    from scicustom.core.evaluation.chat_answerer import ChatMCQAnswerer

    adapters: dict[str, Any] = {}
    cache: Any = None
    answerers: list[MCQAnswerer] = []
    for spec in models.models:
        if isinstance(spec, ChatModelSpec):
            if spec.provider not in adapters:
                from scicustom.adapters.litellm_llm import LiteLLMAdapter
                from scicustom.adapters.llm_response_cache import LLMResponseCache

                cache = cache or LLMResponseCache(settings.llm_cache_path / "responses.sqlite")
                provider = models.providers.get(spec.provider, ProviderSpec(spec.provider))
                # A provider without its own server goes through the configured gateway, if any.
                own_server = provider.api_base is not None
                adapters[spec.provider] = LiteLLMAdapter(
                    cache,
                    max_retries=settings.llm_max_retries if provider.max_retries is None
                    else provider.max_retries,
                    requests_per_minute=provider.requests_per_minute or settings.llm_requests_per_minute,
                    timeout_s=provider.timeout_s or settings.llm_timeout_s,
                    api_base=provider.api_base if own_server else settings.llm_api_base,
                    api_key=_api_key(provider) if own_server else _api_key(provider) or settings.llm_api_key,
                    backoff_s=1.0 if provider.backoff_s is None else provider.backoff_s,
                )
            answerers.append(ChatMCQAnswerer(spec.name, adapters[spec.provider], spec.model, spec.params,
                                             max_workers=concurrency))
        else:
            identity = spec.model or str(Path(spec.path or "").resolve())
            answerers.append(CausalLMMCQScorer(spec.name, identity, _local_loader(spec, settings),
                                               scoring=spec.scoring, batch_size=spec.batch_size,
                                               max_length=spec.max_length))
    return answerers, adapters


def _evaluate(args: argparse.Namespace, ctx: Context) -> int:
    from scicustom.adapters.evaluation_files import EvaluationFolder
    from scicustom.core.errors import LLMCallFailed

    if args.concurrency < 1:
        raise InvalidInput("--concurrency", "must be >= 1")
    if args.bootstrap < 1:
        raise InvalidInput("--bootstrap", "must be >= 1")
    items, benchmark_sha = _read_benchmark(args.benchmark)
    models = _read_models(args.models)
    answerers, adapters = build_answerers(models, Settings(), args.concurrency)
    folder = EvaluationFolder(args.out)
    item_ids = [item.id for item in items]
    specs = {spec.name: spec for spec in models.models}

    results: dict[str, Any] = {}
    failed: dict[str, int] = {}
    for answerer in answerers:
        try:
            with _progress_bar(answerer.name, len(items)) as bar:
                run = run_model(answerer, items, folder.progress, concurrency=args.concurrency,
                                failures=(LLMCallFailed,), on_answer=bar.update)
        except KeyboardInterrupt:
            print(f"scicustom: interrupted during {answerer.name}; progress is saved, rerun to resume",
                  file=sys.stderr)
            return EXIT_INTERRUPTED
        folder.write_responses(answerer.name, run.responses)
        score = score_run(run, item_ids, args.bootstrap, args.seed)
        spec = specs[answerer.name]
        results[answerer.name] = {
            "kind": "litellm" if isinstance(spec, ChatModelSpec) else "local",
            "model": spec.model if isinstance(spec, ChatModelSpec) else spec.model or spec.path,
            **score.to_record(),
        }
        if run.errors:
            failed[answerer.name] = len(run.errors)
        print(f"{answerer.name}: accuracy {score.accuracy:.4f} [{score.ci_low:.4f}, {score.ci_high:.4f}] "
              f"n={score.n} unparsed={score.n_unparsed} errors={score.n_errors} "
              f"(resumed {run.resumed}, answered {run.answered})")

    folder.write_results({
        "benchmark": {"path": str(args.benchmark), "sha256": benchmark_sha, "n_items": len(items)},
        "bootstrap": {"method": "percentile", "resamples": args.bootstrap, "seed": args.seed,
                      "confidence": CONFIDENCE},
        "models": results,
        "totals": {
            "tokens": sum(r["tokens"]["total"] for r in results.values()),
            "cost_usd": round(sum(r["cost_usd"] for r in results.values()), 8),
        },
    })
    folder.write_ranking(ranking_document({name: r["accuracy"] for name, r in results.items()},
                                          benchmark_sha256=benchmark_sha))
    calls = sum(a.usage.calls for a in adapters.values())
    cached = sum(a.usage.cached_calls for a in adapters.values())
    cost = sum(a.usage.cost_usd for a in adapters.values())
    print(f"LLM calls this run: {calls} new, {cached} from cache, ${cost:.4f}; wrote {folder.directory}")
    if failed:
        listed = ", ".join(f"{name} ({n})" for name, n in failed.items())
        print(f"scicustom: calls failed after retries for {listed}; they count as wrong; "
              f"rerun to retry only those", file=sys.stderr)
        return EXIT_CALLS_FAILED
    return 0


def _progress_bar(name: str, total: int) -> Any:
    from tqdm import tqdm

    return tqdm(total=total, desc=name, unit="item", disable=not sys.stderr.isatty(), leave=False)
