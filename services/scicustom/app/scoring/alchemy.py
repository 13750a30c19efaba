"""AlchemyBench (paper 003) in three steps: extract recipes from papers, predict recipes from key
contributions, judge predictions with the 7-criterion LLM judge.

`scicustom score alchemy` runs all three; ScorerService.JudgeRecipes runs the judge, whose fields
are named as in its request (`judge`, `workers`). Extraction and prediction have only the command
line as entry point, so their fields are named by its flags.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from scicustom.app.field_checks import at_most, checked_text
from scicustom.core.alchemy.extraction import Extraction, Paper, RecipeExtractor
from scicustom.core.alchemy.judge import JudgeInput, Judgement, RecipeJudge
from scicustom.core.alchemy.prediction import Prediction, PredictionTarget, RecipePredictor
from scicustom.core.alchemy.report import ExpertRating, judge_report, overlap_baselines
from scicustom.core.alchemy.retrieval import LibraryRecipe, RecipeLibrary
from scicustom.core.errors import InvalidInput
from scicustom.core.llm_usage import LLMUsage, MeteredLLM
from scicustom.ports import LLM, Embedder

MAX_JUDGE_WORKERS = 32
MAX_MODEL_CHARS = 200
DEFAULT_JUDGE_WORKERS = 8


def _at_least_one(value: int, field: str) -> None:
    if value < 1:
        raise InvalidInput(field, "must be at least 1")


@dataclass(frozen=True)
class Extractions:
    extractions: list[Extraction]
    usage: LLMUsage


def extract_recipes(papers: Sequence[Paper], model: str, llm: Callable[[], LLM], *, classify: bool = True,
                    workers: int = 4) -> Extractions:
    _at_least_one(workers, "--workers")
    metered = MeteredLLM(llm())
    extractions = RecipeExtractor(metered, model, classify=classify).extract_all(papers, workers=workers)
    return Extractions(extractions, metered.usage)


@dataclass(frozen=True)
class PredictionRequest:
    targets: Sequence[PredictionTarget]
    model: str
    library: Sequence[LibraryRecipe] | None = None  # extracted recipes to retrieve references from
    top_k: int = 0  # references retrieved per target (paper: 0, 1, 5, 10, 25)
    one_shot_id: str | None = None  # the library recipe shown as the fixed example when K = 0
    batch_size: int = 8


@dataclass(frozen=True)
class Predictions:
    predictions: list[Prediction]
    usage: LLMUsage


def predict_recipes(request: PredictionRequest, llm: Callable[[], LLM],
                    embedder: Callable[[], Embedder]) -> Predictions:
    """`embedder` is called only to retrieve references (K > 0)."""
    _at_least_one(request.batch_size, "--batch-size")
    if request.top_k < 0:
        raise InvalidInput("--top-k", "must be >= 0")
    if (request.top_k > 0 or request.one_shot_id) and request.library is None:
        raise InvalidInput("--library", "needed for --top-k > 0 and for --one-shot-id")
    if request.one_shot_id and request.top_k > 0:
        raise InvalidInput("--one-shot-id", "is the K = 0 setting; use it with --top-k 0")
    library = None
    one_shot = None
    if request.library is not None:
        if not request.library:
            raise InvalidInput("--library", "no extracted recipes in the library")
        if request.one_shot_id:
            matches = [r for r in request.library if r.id == request.one_shot_id]
            if not matches:
                raise InvalidInput("--one-shot-id", f"no recipe {request.one_shot_id!r} in the library")
            one_shot = matches[0]
        if request.top_k > 0:
            library = RecipeLibrary(request.library, embedder())
    metered = MeteredLLM(llm())
    predictor = RecipePredictor(metered, request.model, library=library, top_k=request.top_k, one_shot=one_shot)
    return Predictions(predictor.predict_all(request.targets, batch_size=request.batch_size), metered.usage)


@dataclass(frozen=True)
class JudgeRequest:
    judge: str  # the judge model
    inputs: Sequence[JudgeInput]  # keyed by target id, unique
    groups: Sequence[str]  # each input's report group: "model" or "model (K=k)"
    ratings: Sequence[ExpertRating] = ()  # of known targets
    workers: int = DEFAULT_JUDGE_WORKERS


@dataclass(frozen=True)
class JudgeResult:
    judgements: list[Judgement]
    baselines: dict[str, dict[str, float]]  # target id -> bleu, rouge_l against the ground truth
    report: dict[str, Any]  # REPORT.json
    usage: LLMUsage

    def report_json(self) -> str:
        return json.dumps(self.report, indent=2, ensure_ascii=False, allow_nan=False) + "\n"


def judge_recipes(request: JudgeRequest, llm: Callable[[], LLM]) -> JudgeResult:
    judge = checked_text(request.judge, "judge", MAX_MODEL_CHARS)
    _at_least_one(request.workers, "workers")
    at_most(request.workers, "workers", MAX_JUDGE_WORKERS)
    metered = MeteredLLM(llm())
    judgements = RecipeJudge(metered, judge).judge_all(request.inputs, workers=request.workers)
    baselines = overlap_baselines({i.target.id: (i.prediction, i.target.recipe) for i in request.inputs})
    report = judge_report(judge, request.groups, judgements, request.ratings, baselines, metered.usage.summary())
    return JudgeResult(judgements, baselines, report, metered.usage)
