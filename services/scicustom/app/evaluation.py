"""Evaluate models on a built benchmark (`scicustom evaluate`) and compare two rankings
(`scicustom compare`).

Each model answers every MCQ; a rerun resumes from the saved progress and the LLM response cache,
so nothing answered before is asked again. Accuracy comes with a paired percentile-bootstrap
interval. These use cases have only the command line as entry point: fields are named by its flags.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from scicustom.core.errors import InvalidInput, LLMCallFailed
from scicustom.core.evaluation.accuracy import ModelScore, score_run
from scicustom.core.evaluation.benchmark_lines import MCQItem
from scicustom.core.evaluation.chat_answerer import ChatMCQAnswerer
from scicustom.core.evaluation.model_spec import ChatModelSpec, LocalModelSpec, ModelsFile, ProviderSpec
from scicustom.core.evaluation.ranking import compare_rankings, ranking_document
from scicustom.core.evaluation.responses import EvaluationOutputs, MCQAnswerer
from scicustom.core.evaluation.run import ModelRun, run_model
from scicustom.core.llm_usage import MeteredLLM
from scicustom.ports import LLM

CONFIDENCE = 0.95


@dataclass(frozen=True)
class EvaluationRequest:
    items: Sequence[MCQItem]
    benchmark_path: str
    benchmark_sha256: str  # of the benchmark file's bytes
    models: ModelsFile
    concurrency: int = 4  # parallel requests per chat model (models run one after another)
    bootstrap: int = 1000  # resamples of the 95% interval
    seed: int = 0  # of the resamples

    def __post_init__(self) -> None:
        if self.concurrency < 1:
            raise InvalidInput("--concurrency", "must be >= 1")
        if self.bootstrap < 1:
            raise InvalidInput("--bootstrap", "must be >= 1")


def build_answerers(models: ModelsFile, provider_llm: Callable[[ProviderSpec], LLM],
                    local_answerer: Callable[[LocalModelSpec], MCQAnswerer],
                    concurrency: int) -> tuple[list[MCQAnswerer], dict[str, MeteredLLM]]:
    """The answerers in the file's order, and the LLM client of each provider: one per provider,
    so its models share one rate limit, metered to report the run's calls."""
    clients: dict[str, MeteredLLM] = {}
    answerers: list[MCQAnswerer] = []
    for spec in models.models:
        if isinstance(spec, ChatModelSpec):
            if spec.provider not in clients:
                provider = models.providers.get(spec.provider, ProviderSpec(spec.provider))
                clients[spec.provider] = MeteredLLM(provider_llm(provider))
            answerers.append(ChatMCQAnswerer(spec.name, clients[spec.provider], spec.model, spec.params,
                                             max_workers=concurrency))
        else:
            answerers.append(local_answerer(spec))
    return answerers, clients


@dataclass(frozen=True)
class ModelEvaluation:
    run: ModelRun
    score: ModelScore
    record: dict[str, Any]  # the model's entry in results.json


def evaluate_model(request: EvaluationRequest, answerer: MCQAnswerer, outputs: EvaluationOutputs,
                   on_answer: Callable[[int], None] | None = None) -> ModelEvaluation:
    """Run one model over the benchmark and save its responses; a call that failed after its
    retries counts as a wrong answer, and a rerun asks only those again."""
    run = run_model(answerer, request.items, outputs.progress, concurrency=request.concurrency,
                    failures=(LLMCallFailed,), on_answer=on_answer)
    outputs.write_responses(answerer.name, run.responses)
    score = score_run(run, [item.id for item in request.items], request.bootstrap, request.seed)
    spec = {s.name: s for s in request.models.models}[answerer.name]
    record = {
        "kind": "litellm" if isinstance(spec, ChatModelSpec) else "local",
        "model": spec.model if isinstance(spec, ChatModelSpec) else spec.model or spec.path,
        **score.to_record(),
    }
    return ModelEvaluation(run, score, record)


def write_evaluation(request: EvaluationRequest, results: Mapping[str, Mapping[str, Any]],
                     outputs: EvaluationOutputs) -> dict[str, Any]:
    """results.json (every model's record, totals) and ranking.json (models by accuracy); returns
    the results document."""
    document: dict[str, Any] = {
        "benchmark": {"path": request.benchmark_path, "sha256": request.benchmark_sha256,
                      "n_items": len(request.items)},
        "bootstrap": {"method": "percentile", "resamples": request.bootstrap, "seed": request.seed,
                      "confidence": CONFIDENCE},
        "models": dict(results),
        "totals": {
            "tokens": sum(r["tokens"]["total"] for r in results.values()),
            "cost_usd": round(sum(r["cost_usd"] for r in results.values()), 8),
        },
    }
    outputs.write_results(document)
    outputs.write_ranking(ranking_document({name: r["accuracy"] for name, r in results.items()},
                                           benchmark_sha256=request.benchmark_sha256))
    return document


def compare(ranking_a: Mapping[str, float], ranking_b: Mapping[str, float], label_a: str,
            label_b: str) -> dict[str, Any]:
    """Spearman rho, Kendall tau-b and top-1 agreement over the models both rankings contain."""
    return {"a": label_a, "b": label_b, **compare_rankings(ranking_a, ranking_b).to_record()}
