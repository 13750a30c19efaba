"""`scicustom score alchemy`: AlchemyBench (paper 003), in three steps.

  extract   papers -> recipes, with the paper's classification and extraction prompts
      scicustom score alchemy extract --papers PAPERS.jsonl --model MODEL --out RECIPES.jsonl
          [--no-classify] [--workers N]
      PAPERS.jsonl: {"id", "text"} (the paper as markdown or plain text; the first 50,000 characters
      are read). RECIPES.jsonl: {"id", "status": extracted|no_recipe|too_short, "classification",
      "contribution" (X), "recipe", "materials", "equipment", "procedure", "characterization",
      "extraction" (the raw reply)}.

  predict   key contributions X -> predicted recipe, optionally with the top-K similar recipes
      scicustom score alchemy predict --targets TARGETS.jsonl --model MODEL --out PREDICTIONS.jsonl
          [--library RECIPES.jsonl --top-k K] [--one-shot-id ID] [--batch-size N]
      TARGETS.jsonl: {"id", "contribution", "recipe"?} (RECIPES.jsonl works as is; rows whose status
      is not "extracted" are skipped). K is one of the paper's 0, 1, 5, 10, 25 or any other K >= 0;
      similarity is cosine on the packaged MiniLM embeddings of the contributions, and a target
      never retrieves its own id. --one-shot-id takes one library recipe as the fixed example of
      the K = 0 setting. PREDICTIONS.jsonl: the target row plus "prediction", "model", "top_k",
      "references" [{"id", "score"}].

  judge     predictions -> the 7-criterion LLM judge, BLEU/ROUGE-L, agreement with experts
      scicustom score alchemy judge --predictions PREDICTIONS.jsonl --judge MODEL --out REPORT.json
          [--expert-ratings RATINGS.jsonl] [--workers N]
      Predictions are keyed by "prediction_id" when present, else "id"; keys must be unique.
      RATINGS.jsonl: {"id" (prediction key), "rater", "group"?, "overall"? and/or the seven
      criteria "materials_appropriateness", ..., "characterization_similarity"}.

Every call goes through the cached LLM port: an interrupted run, run again, repeats no call.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scicustom.app.field_names import fields_renamed
from scicustom.app.scoring.alchemy import (
    JudgeRequest,
    PredictionRequest,
    extract_recipes,
    judge_recipes,
    predict_recipes,
)
from scicustom.commands.command_output import emit
from scicustom.commands.llm_access import add_llm_arguments, llm_from_arguments
from scicustom.core.alchemy.extraction import Paper
from scicustom.core.alchemy.judge import JudgeInput
from scicustom.core.alchemy.prediction import PredictionTarget
from scicustom.core.alchemy.report import parse_expert_rating
from scicustom.core.alchemy.retrieval import LibraryRecipe
from scicustom.core.atomic_files import write_jsonl_atomic, write_text_atomic
from scicustom.core.errors import InvalidInput
from scicustom.core.jsonl import read_jsonl

if TYPE_CHECKING:
    from scicustom.bootstrap import Context


def register(suites: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = suites.add_parser("alchemy", help="AlchemyBench: recipe extraction, prediction, LLM judge",
                               description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    actions = parser.add_subparsers(dest="action", required=True, parser_class=type(parser))

    extract = actions.add_parser("extract", help="extract recipes from papers")
    extract.add_argument("--papers", type=Path, required=True, help="PAPERS.jsonl: {id, text}")
    extract.add_argument("--model", required=True, help="litellm model name of the extractor")
    extract.add_argument("--out", type=Path, required=True, help="RECIPES.jsonl to write")
    extract.add_argument("--no-classify", action="store_true", help="skip the classification prompt")
    extract.add_argument("--workers", type=int, default=4, help="papers processed concurrently")
    add_llm_arguments(extract)
    extract.set_defaults(handler=run_extract)

    predict = actions.add_parser("predict", help="predict recipes from key contributions")
    predict.add_argument("--targets", type=Path, required=True,
                         help="TARGETS.jsonl: {id, contribution, recipe?}")
    predict.add_argument("--model", required=True, help="litellm model name of the model under test")
    predict.add_argument("--out", type=Path, required=True, help="PREDICTIONS.jsonl to write")
    predict.add_argument("--library", type=Path, help="RECIPES.jsonl to retrieve references from")
    predict.add_argument("--top-k", type=int, default=0,
                         help="references retrieved per target (paper: 0, 1, 5, 10, 25)")
    predict.add_argument("--one-shot-id", help="library recipe used as the fixed example when K = 0")
    predict.add_argument("--batch-size", type=int, default=8, help="predictions run concurrently")
    add_llm_arguments(predict)
    predict.set_defaults(handler=run_predict)

    judge = actions.add_parser("judge", help="score predictions with the 7-criterion LLM judge")
    judge.add_argument("--predictions", type=Path, required=True, help="PREDICTIONS.jsonl")
    judge.add_argument("--judge", required=True, help="litellm model name of the judge")
    judge.add_argument("--out", type=Path, required=True, help="REPORT.json to write")
    judge.add_argument("--expert-ratings", type=Path, help="RATINGS.jsonl for agreement statistics")
    judge.add_argument("--workers", type=int, default=8, help="judge calls run concurrently")
    add_llm_arguments(judge)
    judge.set_defaults(handler=run_judge)


def _text(row: dict[str, Any], key: str, where: str, *, required: bool = True) -> str:
    value = row.get(key, "")
    if not isinstance(value, str) or (required and not value.strip()):
        raise InvalidInput(f"{where}.{key}", "expected a non-empty string")
    return value


def run_extract(args: argparse.Namespace, ctx: Context) -> int:
    papers = [Paper(id=str(row.get("id", "")) or where, text=_text(row, "text", where))
              for where, row in read_jsonl(args.papers, "--papers")]
    run = extract_recipes(papers, args.model, lambda: llm_from_arguments(args, ctx), classify=not args.no_classify,
                          workers=args.workers)
    rows = []
    for e in run.extractions:
        row: dict[str, Any] = {"id": e.paper_id, "status": e.status,
                               "classification": e.classification.to_row() if e.classification else None}
        if e.recipe is not None:
            row.update({k: v for k, v in e.recipe.to_row().items() if k != "id"})
        row["extraction"] = e.raw
        rows.append(row)
    write_jsonl_atomic(args.out, rows)
    done = sum(1 for r in rows if r["status"] == "extracted")
    emit(args, {"out": str(args.out), "extracted": done, "papers": len(rows), "llm": run.usage.summary()},
         lambda: f"extracted {done} of {len(rows)} papers; LLM {run.usage.summary()}")
    return 0


def _library(path: Path) -> list[LibraryRecipe]:
    return [LibraryRecipe(id=str(row.get("id", "")), contribution=_text(row, "contribution", where),
                          recipe=_text(row, "recipe", where))
            for where, row in read_jsonl(path, "--library") if row.get("status", "extracted") == "extracted"]


def run_predict(args: argparse.Namespace, ctx: Context) -> int:
    rows, targets = [], []
    for where, row in read_jsonl(args.targets, "--targets"):
        if row.get("status", "extracted") != "extracted":
            continue
        targets.append(PredictionTarget(id=str(row.get("id", "")),
                                        contribution=_text(row, "contribution", where),
                                        recipe=_text(row, "recipe", where, required=False)))
        rows.append(row)
    request = PredictionRequest(targets=targets, model=args.model,
                                library=_library(args.library) if args.library is not None else None,
                                top_k=args.top_k, one_shot_id=args.one_shot_id, batch_size=args.batch_size)
    run = predict_recipes(request, lambda: llm_from_arguments(args, ctx), lambda: ctx.embedder)
    out = []
    for row, p in zip(rows, run.predictions, strict=True):
        out.append({**{k: v for k, v in row.items() if k != "extraction"}, "prediction": p.prediction,
                    "model": args.model, "top_k": args.top_k,
                    "references": [{"id": r.recipe.id, "score": round(r.score, 6)} for r in p.references]})
    write_jsonl_atomic(args.out, out)
    emit(args, {"out": str(args.out), "predicted": len(out), "model": args.model, "top_k": args.top_k,
                "llm": run.usage.summary()},
         lambda: f"predicted {len(out)} recipes with {args.model} (K={args.top_k}); LLM {run.usage.summary()}")
    return 0


def run_judge(args: argparse.Namespace, ctx: Context) -> int:
    inputs, groups, seen = [], [], set()
    for where, row in read_jsonl(args.predictions, "--predictions"):
        key = str(row.get("prediction_id") or row.get("id") or "")
        if not key:
            raise InvalidInput(f"{where}.id", "expected an id")
        if key in seen:
            raise InvalidInput(f"{where}.id",
                               f"duplicate prediction {key!r}; give each a unique prediction_id")
        seen.add(key)
        target = PredictionTarget(id=key, contribution=_text(row, "contribution", where),
                                  recipe=_text(row, "recipe", where))
        inputs.append(JudgeInput(target=target, prediction=_text(row, "prediction", where, required=False)))
        model = str(row.get("model", "model"))
        groups.append(f"{model} (K={row['top_k']})" if "top_k" in row else model)
    ratings = []
    if args.expert_ratings is not None:
        rating_rows = read_jsonl(args.expert_ratings, "--expert-ratings")
        ratings = [parse_expert_rating(row, where) for where, row in rating_rows]
        unknown = {r.target_id for r in ratings} - seen
        if unknown:
            raise InvalidInput("--expert-ratings", f"ratings of unknown predictions {sorted(unknown)[:5]}")
    request = JudgeRequest(judge=args.judge, inputs=inputs, groups=groups, ratings=ratings, workers=args.workers)
    with fields_renamed({"judge": "--judge", "workers": "--workers"}):
        result = judge_recipes(request, lambda: llm_from_arguments(args, ctx))
    write_text_atomic(args.out, result.report_json())
    s = result.report["summary"]
    mean = s["overall"]["mean"]
    overall = f"mean overall {mean:.3f}" if mean is not None else "no prediction could be scored"
    emit(args, {"out": str(args.out), "summary": s},
         lambda: f"judged {s['scored']} of {s['predictions']} predictions ({s['malformed']} malformed); {overall}")
    return 0
