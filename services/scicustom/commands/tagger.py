"""`scicustom tagger train | eval | retag | export-triton`: the trained tagger (issue 3)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scicustom.bootstrap import Context
from scicustom.core.errors import InvalidInput
from scicustom.core.units import UnitCatalog

if TYPE_CHECKING:
    from scicustom.bootstrap import Context

KEYWORDS_FILE = "knowledge_units_with_keywords.json"


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
    train.set_defaults(handler=_train)

    evaluate = actions.add_parser("eval", help="paper protocol + real-item agreement, trained vs zero-shot")
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


def load_units(ctx: Context, path: Path | None) -> tuple[UnitCatalog, str]:
    if path is None:
        default = ctx.settings.home / "ontology" / KEYWORDS_FILE
        if not default.exists():
            return ctx.catalog, str(ctx.settings.units_file)
        path = default
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise InvalidInput("--units", f"{path} does not exist") from None
    except json.JSONDecodeError as exc:
        raise InvalidInput("--units", f"{path} is not JSON: {exc}") from None
    return UnitCatalog.from_mapping(data), str(path)


def _inputs(ctx: Context, units: Path | None, writer: Any = None) -> Any:
    from scicustom.adapters.packaged_models import minilm_path
    from scicustom.ingest.corpus_tagging import item_embeddings
    from scicustom.tagger.pipeline import TrainingInputs
    from scicustom.tagger.token_vectors import distil_token_vectors

    catalog, source = load_units(ctx, units)
    items = ctx.corpus.load_items()
    if not items:
        raise InvalidInput("corpus", "the corpus is empty; run `scicustom corpus import` first")
    vectors, _, _ = item_embeddings(ctx.corpus, ctx.embedder, items)
    return TrainingInputs(catalog=catalog, items=items, item_vectors=vectors, embedder=ctx.embedder,
                          token_vectors=distil_token_vectors(ctx.settings.model_cache),
                          tokenizer_json=minilm_path() / "tokenizer.json", units_source=source, writer=writer)


def _print_evaluation(evaluation: dict[str, Any]) -> None:
    paper = evaluation["paper_protocol"]
    names = [k for k in paper if k != "queries"]
    for name in names:
        p = paper[name]
        print(f"paper protocol ({paper['queries']} unseen queries, fuzzy ratio >= 85) {name:17s}: "
              f"micro-F1 {p['micro_f1']:.3f} macro-F1 {p['macro_f1']:.3f} "
              f"(P {p['micro_precision']:.3f} R {p['micro_recall']:.3f})")
    agree = evaluation["real_heldout_domain_agreement"]
    for name in names:
        a = agree[name]
        print(f"held-out real MMLU/MedMCQA ({a['items']} items) {name:17s}: top-unit domain agreement {a['all']:.3f} "
              f"(science {a['science_subjects']:.3f}, non-science {a['non_science_subjects']:.3f}), "
              f"{a['mean_units']:.2f} units/item")


def _train(args: argparse.Namespace, ctx: Context) -> int:
    from scicustom.core.tagger_training.llm_writer import LLMQueryWriter
    from scicustom.tagger.artifact import tagger_root
    from scicustom.tagger.datasets import DataPlan
    from scicustom.tagger.pipeline import train
    from scicustom.tagger.training import TrainConfig

    if args.synthetic < 1 or args.epochs < 1 or not 0.0 <= args.keyword_heldout < 1.0:
        raise InvalidInput("tagger train", "--synthetic and --epochs must be >= 1, --keyword-heldout in [0, 1)")
    writer = LLMQueryWriter(ctx.llm, args.llm_model) if args.llm_model else None
    inputs = _inputs(ctx, args.units, writer)
    plan = DataPlan(synthetic=args.synthetic, keyword_heldout=args.keyword_heldout, seed=args.seed)
    result = train(inputs, tagger_root(ctx.settings.home), plan, TrainConfig(epochs=args.epochs, seed=args.seed),
                   make_current=not args.keep_current)
    print(f"tagger {result.artifact.version}: trained in {result.train_seconds:.0f} s on "
          f"{result.examples['train']} examples ({json.dumps(result.examples)}); saved to {result.artifact.directory}")
    _print_evaluation(result.evaluation)
    return 0


def _eval(args: argparse.Namespace, ctx: Context) -> int:
    from scicustom.tagger.artifact import current_artifact_dir
    from scicustom.tagger.pipeline import evaluate_artifact

    directory = current_artifact_dir(ctx.settings.home, args.version)
    try:
        evaluation = evaluate_artifact(_inputs(ctx, args.units), directory)
    except ValueError as exc:
        raise InvalidInput("--units", str(exc)) from None
    _print_evaluation(evaluation)
    return 0


def _retag(args: argparse.Namespace, ctx: Context) -> int:
    from scicustom.ingest.trained_tagging import retag_corpus

    if args.tagger == "zeroshot":
        from scicustom.ingest.corpus_tagging import tag_corpus

        zs = tag_corpus(ctx.corpus, ctx.embedder, ctx.catalog, show_progress=True)
        print(f"tagger {zs.tagger_version}: {zs.items} items, tagged {zs.tagged} new "
              f"({zs.tag_items_per_s:.0f} items/s), {zs.non_scientific} Non-Scientific; its index is current")
        return 0
    from scicustom.adapters.onnx_tagger import OnnxTagger
    from scicustom.tagger.artifact import current_artifact_dir

    tagger = OnnxTagger(current_artifact_dir(ctx.settings.home, args.version))
    non_sci = tagger.artifact.non_scientific_index
    report = retag_corpus(ctx.corpus, tagger, tagger.artifact.unit_ids,
                          tagger.artifact.unit_ids[non_sci] if non_sci is not None else None)
    print(f"tagger {report.tagger_version}: {report.items} items, tagged {report.tagged} new "
          f"({report.items_per_s:.0f} items/s), {report.non_scientific} Non-Scientific; "
          f"index {report.index_key} is current")
    return 0


def _export_triton(args: argparse.Namespace, ctx: Context) -> int:
    from scicustom.tagger.artifact import current_artifact_dir, load_artifact
    from scicustom.tagger.triton_repository import write_triton_repository

    artifact = load_artifact(current_artifact_dir(ctx.settings.home, args.version))
    path = write_triton_repository(artifact, args.out, max_batch=args.max_batch)
    print(f"Triton model repository for {artifact.version} written to {path}")
    return 0
