"""`scicustom corpus index`: the current tagger's tagged items into the search index (Elasticsearch,
cluster profile). Registers under the `corpus` command, which commands/corpus.py defines and which
the CLI registers first (modules register in name order)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from scicustom.app.ingest.search_indexing import DEFAULT_CHUNK, index_corpus
from scicustom.commands.command_output import emit
from scicustom.core.errors import PreconditionFailed

if TYPE_CHECKING:
    from scicustom.bootstrap import Context


def _corpus_actions(sub: argparse._SubParsersAction) -> argparse._SubParsersAction:  # type: ignore[type-arg]
    corpus = sub.choices.get("corpus")
    if corpus is None:
        raise RuntimeError("the `corpus` command must be registered before `corpus index`")
    for action in corpus._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action
    raise RuntimeError("the `corpus` command has no sub-commands")


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    index = _corpus_actions(sub).add_parser(
        "index", help="index the current tagger's tagged items into the search index (cluster profile)")
    index.add_argument("--chunk", type=int, default=DEFAULT_CHUNK, help="items per bulk request")
    index.add_argument("--reindex", action="store_true",
                       help="index every tagged item again, not only those the index lacks")
    index.set_defaults(handler=_index)


def _index(args: argparse.Namespace, ctx: Context) -> int:
    if not ctx.cluster:
        raise PreconditionFailed("`corpus index` fills the cluster's search index: use --profile cluster")
    version = ctx.current_index()["tagger_version"]
    report = index_corpus(ctx.corpus, ctx.search_index, ctx.settings.elasticsearch_index, version, ctx.embedder,
                          ctx.perplexity, chunk=args.chunk, reindex=args.reindex, show_progress=True)
    emit(args, report, lambda: f"index {report.index}, tagger {report.tagger_version}: {report.tagged} tagged items; "
          f"{report.indexed} indexed ({report.items_per_s:.0f} items/s), {report.already_indexed} already there; "
          f"computed {report.embedded} embeddings and {report.scored} intrinsic scores")
    return 0
