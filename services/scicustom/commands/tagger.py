"""`scicustom tagger train | eval | retag | export-triton`: the trained tagger (issue 3)."""

from __future__ import annotations

import argparse
import json
from functools import partial
from pathlib import Path
from typing import Any

from scicustom.app.ontology.workspace import KEYWORDS_FILE
from scicustom.app.tagging.corpus_tagging import tag_corpus
from scicustom.app.tagging.tagger_export import export_triton
from scicustom.app.tagging.trained_tagging import retag_with_trained
from scicustom.app.tagging.training_requests import TrainRequest, UnitSet, evaluate_tagger, train_tagger
from scicustom.app.tagging.training_units import tagger_units
from scicustom.bootstrap import Context
from scicustom.commands.command_output import emit
from scicustom.commands.progress_bars import ProgressBars
from scicustom.core.tagger_training.vector_head import DEFAULT_BLEND


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser("tagger", help="train, evaluate and apply the trained knowledge-unit tagger")
    actions = parser.add_subparsers(dest="action", required=True, parser_class=type(parser))

    train = actions.add_parser("train", help="train on synthetic + weakly labelled real queries, export ONNX")
    _units_flag(train)
    train.add_argument("--synthetic", type=int, default=160000, help="synthetic training queries")
    train.add_argument("--epochs", type=int, default=6)
    train.add_argument("--keyword-heldout", type=float, default=0.0,
                       help="share of each K_v kept out of training and used alone by the test queries "
                            "(0: the paper's protocol, keywords from the whole K_v)")
    train.add_argument("--seed", type=int, default=0)
    train.add_argument("--llm-model", help="write synthetic queries with this litellm model (the paper's prompt)")
    train.add_argument("--keep-current", action="store_true", help="do not make the new model the current one")
    train.add_argument("--head-blend", type=float, default=DEFAULT_BLEND,
                       help="weight of the sentence-vector head against the token network "
                            f"(default {DEFAULT_BLEND}; 0: no head, the tagger reads text only)")
    train.set_defaults(handler=_train)

    evaluate = actions.add_parser("evaluate", aliases=["eval"],
                                  help="hand-labelled real questions, paper protocol and domain agreement, "
                                       "trained vs zero-shot")
    _units_flag(evaluate)
    evaluate.add_argument("--version", help="a trained version (default: the current one)")
    evaluate.set_defaults(handler=_eval)

    retag = actions.add_parser("retag", help="tag the stored corpus incrementally and make it the current index")
    retag.add_argument("--tagger", choices=["trained", "zeroshot"], default="trained")
    retag.add_argument("--version", help="a trained version (default: the current one)")
    retag.set_defaults(handler=_retag)

    triton = actions.add_parser("export-triton", help="write a Triton model repository for the GPU deployment")
    triton.add_argument("--out", type=Path, required=True)
    triton.add_argument("--version", help="a trained version (default: the current one)")
    triton.add_argument("--max-batch", type=int, default=256)
    triton.set_defaults(handler=_export_triton)


def _units_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--units", type=Path, help="unit set with keywords (default: <home>/ontology/"
                        f"{KEYWORDS_FILE} when present, else the configured units file)")


def _units(ctx: Context, path: Path | None) -> UnitSet:
    return partial(tagger_units, path, ctx.ontology_workspace.keywords_file, lambda: ctx.catalog,
                   ctx.settings.units_file)


def _evaluation_text(evaluation: dict[str, Any]) -> str:
    lines = []
    for split, scores in evaluation.get("real_gold", {}).items():
        for name, s in scores.items():
            lines.append(
                f"hand-labelled real questions, {split:7s} ({s['items']} items) {name:17s}: "
                f"micro-F1 {s['micro_f1']:.3f} macro-F1 {s['macro_f1']:.3f} (P {s['micro_precision']:.3f} "
                f"R {s['micro_recall']:.3f}) top-1 hit {s['top1_hit']:.3f} domain {s['domain_agreement']:.3f}, "
                f"{s['mean_units']:.2f} units/item")
    paper = evaluation["paper_protocol"]
    names = [k for k in paper if k != "queries"]
    for name in names:
        p = paper[name]
        lines.append(
            f"paper protocol ({paper['queries']} unseen queries, fuzzy ratio >= 85) {name:17s}: "
            f"micro-F1 {p['micro_f1']:.3f} macro-F1 {p['macro_f1']:.3f} "
            f"(P {p['micro_precision']:.3f} R {p['micro_recall']:.3f})")
    agree = evaluation["real_heldout_domain_agreement"]
    for name in names:
        a = agree[name]
        lines.append(
            f"held-out real MMLU/MedMCQA ({a['items']} items) {name:17s}: top-unit domain agreement {a['all']:.3f} "
            f"(science {a['science_subjects']:.3f}, non-science {a['non_science_subjects']:.3f}), "
            f"{a['mean_units']:.2f} units/item")
    return "\n".join(lines)


def _train(args: argparse.Namespace, ctx: Context) -> int:
    request = TrainRequest(synthetic=args.synthetic, epochs=args.epochs, keyword_heldout=args.keyword_heldout,
                           seed=args.seed, llm_model=args.llm_model, keep_current=args.keep_current,
                           head_blend=args.head_blend)
    with ProgressBars("batch") as bars:
        result = train_tagger(request, _units(ctx, args.units), ctx.corpus, ctx.embedder, ctx.tagger_trainer,
                              ctx.tagger_artifacts, lambda: ctx.llm, bars)
    emit(args, {"version": result.artifact.version, "train_seconds": result.train_seconds,
                "examples": result.examples, "directory": str(result.artifact.directory),
                "evaluation": result.evaluation},
         lambda: f"tagger {result.artifact.version}: trained in {result.train_seconds:.0f} s on "
                 f"{result.examples['train']} examples ({json.dumps(result.examples)}); saved to "
                 f"{result.artifact.directory}\n" + _evaluation_text(result.evaluation))
    return 0


def _eval(args: argparse.Namespace, ctx: Context) -> int:
    evaluation = evaluate_tagger(args.version, _units(ctx, args.units), ctx.corpus, ctx.embedder,
                                 ctx.tagger_artifacts)
    emit(args, evaluation, lambda: _evaluation_text(evaluation))
    return 0


def _retag(args: argparse.Namespace, ctx: Context) -> int:
    if args.tagger == "zeroshot":
        zs = tag_corpus(ctx.corpus, ctx.embedder, ctx.catalog, ctx.unit_index_writer, show_progress=True)
        emit(args, zs, lambda: f"tagger {zs.tagger_version}: {zs.items} items, tagged {zs.tagged} new "
                               f"({zs.tag_items_per_s:.0f} items/s), {zs.non_scientific} Non-Scientific; "
                               "its index is current")
        return 0
    with ProgressBars("item") as bars:
        report = retag_with_trained(ctx.corpus, ctx.tagger_artifacts, args.version, ctx.unit_index_writer,
                                    ctx.embedder, bars)
    emit(args, report, lambda: f"tagger {report.tagger_version}: {report.items} items, tagged {report.tagged} new "
                               f"({report.items_per_s:.0f} items/s), {report.non_scientific} Non-Scientific; "
                               f"index {report.index_key} is current")
    return 0


def _export_triton(args: argparse.Namespace, ctx: Context) -> int:
    artifact, path = export_triton(ctx.tagger_artifacts, ctx.tagger_model_repository, args.version, args.out,
                                   args.max_batch)
    emit(args, {"version": artifact.version, "path": str(path)},
         lambda: f"Triton model repository for {artifact.version} written to {path}")
    return 0
