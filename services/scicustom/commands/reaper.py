"""`scicustom reaper [--once] [--interval S]`: requeue, then fail, builds whose heartbeat stopped
(app/build/reaper.py). Run one at a time (a single replica): two would count one stall twice."""

from __future__ import annotations

import argparse
import contextlib
import signal
import threading
from typing import TYPE_CHECKING

from scicustom.commands.command_output import emit
from scicustom.core.errors import InvalidInput

if TYPE_CHECKING:
    from scicustom.bootstrap import Context


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser("reaper", help="requeue or fail builds whose stage workers stopped beating")
    parser.add_argument("--once", action="store_true", help="one sweep, then exit")
    parser.add_argument("--interval", type=float, default=60.0, help="seconds between sweeps (default 60)")
    parser.set_defaults(handler=_run)


def _run(args: argparse.Namespace, ctx: Context) -> int:
    from scicustom.app.build.reaper import BuildReaper, Reaped
    from scicustom.workers.build_reaper import run_reaper, sweep_once
    from scicustom.workers.topics import Topics

    if args.interval <= 0:
        raise InvalidInput("--interval", "must be > 0")
    reaper = BuildReaper(ctx, ctx.settings.build_heartbeat_timeout_s, ctx.settings.build_max_requeues)
    topics = Topics(ctx.settings.topic_prefix)
    if args.once:
        actions = sweep_once(reaper, ctx.event_bus, topics)
        ctx.event_bus.close()
        failed = [a for a in actions if isinstance(a, Reaped)]
        emit(args, actions, lambda: f"requeued {len(actions) - len(failed)} build(s), failed {len(failed)}")
        return 0
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda signum, frame: stop.set())
    print(f"reaper sweeping every {args.interval:.0f} s", flush=True)
    with contextlib.suppress(KeyboardInterrupt):
        run_reaper(reaper, ctx.event_bus, topics, stop, args.interval)
    ctx.event_bus.close()
    return 0
