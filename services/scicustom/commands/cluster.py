"""`scicustom cluster init`: create what the cluster profile needs, idempotently: every Kafka
topic of the platform, the S3 bucket and the Elasticsearch index mapping (the Helm hook Job)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from scicustom.commands.command_output import emit
from scicustom.core.errors import InvalidInput, PreconditionFailed

if TYPE_CHECKING:
    from scicustom.bootstrap import Context


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser("cluster", help="cluster profile administration")
    actions = parser.add_subparsers(dest="action", required=True, parser_class=type(parser))
    init = actions.add_parser("init", help="create the topics, the bucket and the index mapping (idempotent)")
    init.add_argument("--partitions", type=int, default=6,
                      help="partitions per topic: the most workers one stage can run in parallel")
    init.set_defaults(handler=_init)
    use = actions.add_parser("use-served-tagger",
                             help="make the trained tagger the model server (SCICUSTOM_TAGGER_URL) serves the "
                                  "current index: the tag workers and builds then use it")
    use.set_defaults(handler=_use_served_tagger)


def _init(args: argparse.Namespace, ctx: Context) -> int:
    from scicustom.workers.topics import Topics

    if args.partitions < 1:
        raise InvalidInput("--partitions", "must be >= 1")
    if not ctx.cluster:
        raise PreconditionFailed("`cluster init` needs the cluster profile (--profile cluster)")
    ctx.store.exists("index/current.json")  # connecting creates the bucket when it is missing
    topics = Topics(ctx.settings.topic_prefix).all()
    for topic in topics:
        ctx.event_bus.ensure_topic(topic, args.partitions)
    index = ctx.search_index  # created with its mapping, or checked against it
    ctx.event_bus.close()
    emit(args, {"bucket": ctx.settings.s3_bucket, "topics": sorted(topics), "index": index.index},
         lambda: f"bucket {ctx.settings.s3_bucket} ready at {ctx.settings.s3_endpoint}; {len(topics)} topics ready; "
                 f"index {index.index} ready")
    return 0


def _use_served_tagger(args: argparse.Namespace, ctx: Context) -> int:
    from scicustom.app.tagging.trained_tagging import use_served_tagger

    s = ctx.settings
    if not s.tagger_url:
        raise PreconditionFailed("`cluster use-served-tagger` needs SCICUSTOM_TAGGER_URL (the tagger model server)")
    version = ctx.remote_tagger(s.tagger_url, s.tagger_protocol, s.tagger_model_name).version
    current = use_served_tagger(ctx.store, version, ctx.embedder.name)
    emit(args, current, lambda: f"current index: tagger {current['tagger_version']} served at {s.tagger_url}, "
                                f"embedder {current['embedder']}")
    return 0
