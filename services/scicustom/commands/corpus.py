"""`scicustom corpus import | tag | scores | stats | seed-embeddings`."""

from __future__ import annotations

import argparse
from pathlib import Path

from scicustom.app.ingest.corpus_composition import corpus_composition
from scicustom.app.ingest.corpus_importer import import_jsonl, import_packaged
from scicustom.app.ingest.intrinsic_scoring import score_corpus
from scicustom.app.ingest.item_embeddings import seed_embeddings
from scicustom.app.tagging.corpus_tagging import tag_corpus
from scicustom.bootstrap import Context
from scicustom.commands.command_output import emit


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser("corpus", help="import, tag and inspect the QA corpus")
    actions = parser.add_subparsers(dest="action", required=True, parser_class=type(parser))

    imp = actions.add_parser("import", help="import the packaged sources (or a JSONL file of your own)")
    imp.add_argument("--source", action="append", help="only this packaged source (repeatable)")
    imp.add_argument("--limit-per-source", type=int, default=None, help="import a slice (for tests)")
    imp.add_argument("--jsonl", type=Path, help="import your own items from this JSONL file instead")
    imp.add_argument("--source-name", default="user", help="source name for --jsonl items")
    imp.add_argument("--licence", default="unknown", help="licence recorded for --jsonl items")
    imp.add_argument("--eager-scores", action="store_true",
                     help="also compute every item's hardness now (builds otherwise score the items they need)")
    imp.set_defaults(handler=_import)

    tag = actions.add_parser("tag", help="embed and tag every item, then rebuild the unit index")
    tag.set_defaults(handler=_tag)

    scores = actions.add_parser("scores", help="compute missing intrinsic scores (quality, hardness)")
    scores.add_argument("--limit", type=int, default=None, help="at most this many items")
    scores.set_defaults(handler=_scores)

    stats = actions.add_parser("stats", help="items per source and format")
    stats.set_defaults(handler=_stats)

    seed = actions.add_parser("seed-embeddings",
                              help="copy another home's stored item vectors (this embedder's) into this store")
    seed.add_argument("--from-home", type=Path, required=True,
                      help="an embedded home (e.g. .scicustom) whose store holds the vectors")
    seed.set_defaults(handler=_seed_embeddings)


def _import(args: argparse.Namespace, ctx: Context) -> int:
    if args.jsonl:
        report = import_jsonl(ctx.corpus, args.jsonl, args.source_name, args.licence)
    else:
        report = import_packaged(ctx.corpus, ctx.packaged_corpus, args.source, args.limit_per_source,
                                 show_progress=True)
    emit(args, report, report.render)
    if args.eager_scores:
        return _scores(argparse.Namespace(limit=None), ctx)
    return 0


def _tag(args: argparse.Namespace, ctx: Context) -> int:
    report = tag_corpus(ctx.corpus, ctx.embedder, ctx.catalog, ctx.unit_index_writer, show_progress=True)
    emit(args, report, lambda: f"tagger {report.tagger_version}: {report.items} items; embedded {report.embedded} new "
          f"({report.embed_items_per_s:.0f} items/s), tagged {report.tagged} new "
          f"({report.tag_items_per_s:.0f} items/s); threshold {report.threshold:.4f} "
          f"(balanced accuracy {report.calibration_balanced_accuracy:.3f} on MMLU subjects); "
          f"{report.non_scientific} items Non-Scientific")
    return 0


def _scores(args: argparse.Namespace, ctx: Context) -> int:
    report = score_corpus(ctx.corpus, ctx.perplexity, args.limit, show_progress=True)
    summary = {"computed": report.computed, "cached": report.cached, "items_per_s": report.items_per_s}
    emit(args, summary, lambda: f"intrinsic scores: {report.computed} computed ({report.items_per_s:.1f} items/s), "
                                f"{report.cached} already cached")
    return 0


def _stats(args: argparse.Namespace, ctx: Context) -> int:
    by_source = corpus_composition(ctx.corpus)
    rows = sorted(by_source.items())
    emit(args, {"sources": [{"source": s, "licence": lic, "format": f, "items": n} for (s, lic, f), n in rows],
                "total": by_source.total()},
         lambda: "\n".join([*(f"{s:<14}{lic:<16}{f:<6}{n:>8}" for (s, lic, f), n in rows),
                            f"{'total':<36}{by_source.total():>8}"]))
    return 0


def _seed_embeddings(args: argparse.Namespace, ctx: Context) -> int:
    """Ingestion then embeds only the items whose vectors were not seeded (the tag worker's reuse)."""
    model = ctx.embedder.name
    copied, present = seed_embeddings(Context.corpus_at_home(args.from_home), ctx.corpus, model)
    emit(args, {"embedder": model, "copied": copied, "already_there": present},
         lambda: f"{model}: copied {copied} item vectors from {args.from_home}; {present} were already there")
    return 0
