"""`scicustom dev up|down|status`: the whole platform on loopback (what `make dev-up` runs)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING

from scicustom.commands.command_output import emit
from scicustom.core.errors import InvalidInput

if TYPE_CHECKING:
    from scicustom.bootstrap import Context


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser("dev", help="run the distributed platform on this machine")
    actions = parser.add_subparsers(dest="action", required=True, parser_class=type(parser))
    up = actions.add_parser("up", help="start servers, services and workers on loopback")
    up.add_argument("--dir", type=Path, default=Path(".dev"), help="state, logs and data (default .dev)")
    up.add_argument("--limit-per-source", type=int, default=None,
                    help="corpus items per packaged source to load, 0: all (default: all of them through the bus "
                         "with a trained tagger in --tagger-home, else a 150-per-source slice)")
    up.add_argument("--no-corpus", action="store_true", help="do not load a corpus")
    up.add_argument("--tagger-home", type=Path, default=None,
                    help="a home with a trained tagger to serve through the KServe model server; its stored "
                         "item vectors are copied into the cluster first")
    up.add_argument("--no-seed-embeddings", action="store_true",
                    help="do not copy the tagger home's item vectors: the tag worker embeds every item (slow)")
    up.set_defaults(handler=_up)
    down = actions.add_parser("down", help="stop every process `dev up` started, by PID")
    down.add_argument("--dir", type=Path, default=Path(".dev"))
    down.set_defaults(handler=_down)
    status = actions.add_parser("status", help="which recorded processes still run")
    status.add_argument("--dir", type=Path, default=Path(".dev"))
    status.set_defaults(handler=_status)


def _up(args: argparse.Namespace, ctx: Context) -> int:
    from scicustom.devstack.dev_cluster import DevOptions, up

    if args.limit_per_source is not None and args.limit_per_source < 0:
        raise InvalidInput("--limit-per-source", "must be >= 0")
    up(DevOptions(args.dir, args.limit_per_source, not args.no_corpus, args.tagger_home, not args.no_seed_embeddings),
       lambda line: print(line, flush=True))
    return 0


def _down(args: argparse.Namespace, ctx: Context) -> int:
    from scicustom.devstack.dev_cluster import down

    down(args.dir)
    return 0


def _status(args: argparse.Namespace, ctx: Context) -> int:
    from scicustom.devstack.dev_cluster import status

    states = status(args.dir)
    emit(args, {"processes": {name: "running" if alive else "stopped" for name, alive in states.items()}},
         lambda: "\n".join(f"{name:<28} {'running' if alive else 'stopped'}" for name, alive in states.items()))
    return 0 if states and all(states.values()) else 1
