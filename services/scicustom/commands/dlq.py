"""`scicustom dlq list|redrive --stage S [--limit N]`: a stage's dead letters, and sending them back
to the topic they came from once the cause is fixed (workers/dead_letters.py). A record that dies
again after a redrive is not redriven a second time."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from scicustom.commands.command_output import emit

if TYPE_CHECKING:
    from scicustom.bootstrap import Context


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser("dlq", help="list and redrive the dead letters of a worker stage")
    actions = parser.add_subparsers(dest="action", required=True, parser_class=type(parser))
    for name, text in (("list", "show a stage's dead letters (reads only)"),
                       ("redrive", "republish a stage's dead letters to their original topic")):
        action = actions.add_parser(name, help=text)
        action.add_argument("--stage", required=True, help="the worker stage, e.g. vote, tag, parse")
        action.add_argument("--limit", type=int, default=100, help="at most this many letters (default 100)")
        action.add_argument("--wait", type=float, default=5.0,
                            help="stop after this many seconds without a letter (default 5)")
        action.set_defaults(handler=_run)


def _run(args: argparse.Namespace, ctx: Context) -> int:
    from scicustom.workers.dead_letters import dead_letter_query, list_dead_letters, redrive_dead_letters
    from scicustom.workers.topics import Topics

    query = dead_letter_query(args.stage, args.limit, args.wait, ("--stage", "--limit", "--wait"))
    topics = Topics(ctx.settings.topic_prefix)
    try:
        if args.action == "list":
            letters = list_dead_letters(ctx.event_bus, topics, query.stage, query.limit, query.wait_s)
            emit(args, letters, lambda: "\n".join(
                [f"{d.topic}@{d.partition}:{d.offset} attempts={d.attempts}{' redriven' if d.redriven else ''} "
                 f"{d.error}" for d in letters] + [f"{len(letters)} dead letter(s) of stage {args.stage}"]))
        else:
            result = redrive_dead_letters(ctx.event_bus, topics, query.stage, query.limit, query.wait_s)
            emit(args, result, lambda: f"redrove {len(result.redriven)} dead letter(s) of stage {args.stage}; "
                                       f"skipped {len(result.skipped)} that died again after a redrive")
    finally:
        ctx.event_bus.close()
    return 0
