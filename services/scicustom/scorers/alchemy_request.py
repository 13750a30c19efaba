"""JudgeRecipes messages <-> the AlchemyBench judge (`app.scoring.alchemy`): predictions and expert
ratings become what `scicustom score alchemy judge` reads from PREDICTIONS.jsonl and RATINGS.jsonl.
The limits here bound what one message may carry; the use case checks the parameters."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from scicustom.app.field_checks import checked_text
from scicustom.app.scoring.alchemy import DEFAULT_JUDGE_WORKERS, JudgeRequest, JudgeResult
from scicustom.core.alchemy.judge import CRITERIA, JudgeInput, Judgement
from scicustom.core.alchemy.prediction import PredictionTarget
from scicustom.core.alchemy.report import ExpertRating, parse_expert_rating
from scicustom.core.errors import InvalidInput
from scicustom.scorers.v1 import scorers_pb2 as pb

MAX_PREDICTIONS = 1000
MAX_RATINGS = 20000
MAX_KEY_CHARS = 256
MAX_TEXT_CHARS = 50000
MAX_MODEL_CHARS = 200
DEFAULT_MODEL = "model"


def _long(value: str, field: str) -> None:
    if len(value) > MAX_TEXT_CHARS:
        raise InvalidInput(field, f"has {len(value)} characters, above the limit {MAX_TEXT_CHARS}")


def judge_inputs(predictions: Sequence[pb.RecipePrediction]) -> tuple[list[JudgeInput], list[str]]:
    """The judge's inputs and each one's report group ("model" or "model (K=k)")."""
    if not 1 <= len(predictions) <= MAX_PREDICTIONS:
        raise InvalidInput("predictions", f"has {len(predictions)} entries; give 1..{MAX_PREDICTIONS}")
    inputs, groups = [], []
    first: dict[str, int] = {}
    for i, p in enumerate(predictions):
        where = f"predictions[{i}]"
        key_field = f"{where}.prediction_id" if p.prediction_id else f"{where}.id"
        key = checked_text(p.prediction_id or p.id, key_field, MAX_KEY_CHARS)
        if key in first:
            raise InvalidInput(key_field, f"duplicate prediction {key!r} (predictions[{first[key]}]); give each a "
                                          "unique prediction_id")
        first[key] = i
        for name in ("contribution", "recipe"):
            checked_text(getattr(p, name), f"{where}.{name}", MAX_TEXT_CHARS)
        _long(p.prediction, f"{where}.prediction")
        if len(p.model) > MAX_MODEL_CHARS:
            raise InvalidInput(f"{where}.model", f"has more than {MAX_MODEL_CHARS} characters")
        target = PredictionTarget(id=key, contribution=p.contribution, recipe=p.recipe)
        inputs.append(JudgeInput(target=target, prediction=p.prediction))
        model = p.model or DEFAULT_MODEL
        groups.append(f"{model} (K={p.top_k})" if p.HasField("top_k") else model)
    return inputs, groups


def expert_ratings(messages: Sequence[pb.ExpertRating], keys: set[str]) -> list[ExpertRating]:
    if len(messages) > MAX_RATINGS:
        raise InvalidInput("expert_ratings", f"has {len(messages)} entries, above the limit {MAX_RATINGS}")
    ratings = []
    for i, message in enumerate(messages):
        where = f"expert_ratings[{i}]"
        if message.id not in keys:
            raise InvalidInput(f"{where}.id", f"{message.id!r} is not the key of a prediction in the request")
        row: dict[str, Any] = {"id": message.id, "rater": message.rater, "group": message.group}
        for name in ("overall", *CRITERIA):
            if message.HasField(name):
                row[name] = getattr(message, name)
        ratings.append(parse_expert_rating(row, where))
    return ratings


def _stats(values: dict[str, Any]) -> pb.ScoreStats:
    stats = pb.ScoreStats(n=values["n"])
    for name in ("mean", "std", "min", "max"):
        if values[name] is not None:
            setattr(stats, name, values[name])
    return stats


def _judgement(j: Judgement, group: str, baseline: dict[str, float]) -> pb.RecipeJudgement:
    message = pb.RecipeJudgement(id=j.target_id, group=group, attempts=j.attempts, problem=j.problem,
                                 bleu=baseline["bleu"], rouge_l=baseline["rouge_l"])
    if j.scores is not None:
        message.criteria.update(j.scores.criteria)
        message.overall = j.scores.overall
        if j.scores.judge_overall is not None:
            message.judge_overall = j.scores.judge_overall
        message.off_grid.extend(j.scores.off_grid)
    return message


def judge_request(request: pb.JudgeRecipesRequest) -> JudgeRequest:
    """The use case's request; unset workers (0) take the CLI's default."""
    inputs, groups = judge_inputs(request.predictions)
    ratings = expert_ratings(request.expert_ratings, {i.target.id for i in inputs})
    return JudgeRequest(judge=request.judge, inputs=inputs, groups=groups, ratings=ratings,
                        workers=request.workers or DEFAULT_JUDGE_WORKERS)


def judge_response(result: JudgeResult, groups: Sequence[str]) -> pb.JudgeRecipesResponse:
    summary = result.report["summary"]
    return pb.JudgeRecipesResponse(
        judgements=[_judgement(j, g, result.baselines[j.target_id])
                    for g, j in zip(groups, result.judgements, strict=True)],
        scored=summary["scored"], malformed=summary["malformed"], retried=summary["retried"],
        overall=_stats(summary["overall"]), report_json=result.report_json(),
        usage=pb.LLMUsage(**result.usage.summary()))
