"""`scicustom serve tagger`: the trained tagger as a KServe model server (Open Inference Protocol v2)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from scicustom.bootstrap import Context
from scicustom.core.errors import InvalidInput

if TYPE_CHECKING:
    from scicustom.bootstrap import Context


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser("serve", help="run a model server")
    targets = parser.add_subparsers(dest="target", required=True, parser_class=type(parser))
    tagger = targets.add_parser("tagger", help="the trained tagger over REST and gRPC (KServe ModelServer)")
    tagger.add_argument("--host", default="127.0.0.1", help="interface to bind (0.0.0.0 in a pod)")
    tagger.add_argument("--http-port", type=int, default=8080)
    tagger.add_argument("--grpc-port", type=int, default=8081)
    tagger.add_argument("--version", help="a trained version (default: the current one)")
    tagger.add_argument("--max-batch", type=int, default=256, help="texts per request, more is refused")
    tagger.add_argument("--threads", type=int, default=None, help="onnxruntime intra-op threads")
    tagger.set_defaults(handler=_serve_tagger)


def _serve_tagger(args: argparse.Namespace, ctx: Context) -> int:
    from scicustom.tagger.artifact import current_artifact_dir

    for flag, port in (("--http-port", args.http_port), ("--grpc-port", args.grpc_port)):
        if not 0 < port < 65536:
            raise InvalidInput(flag, f"{port} is not a port")
    if args.max_batch < 1:
        raise InvalidInput("--max-batch", "must be >= 1")
    directory = current_artifact_dir(ctx.settings.home, args.version)
    if not (directory / "manifest.json").exists():
        raise InvalidInput("--version", f"no trained tagger in {directory}")
    # kserve reads sys.argv when imported; import it only here, in the server process.
    from scicustom.tagger.model_server import serve

    serve(directory, args.host, args.http_port, args.grpc_port, max_batch=args.max_batch, threads=args.threads)
    return 0
