"""`scicustom serve tagger`: the trained tagger as a KServe model server (Open Inference Protocol v2)."""

from __future__ import annotations

import argparse
import importlib

from scicustom.app.tagging.tagger_export import serving_directory
from scicustom.bootstrap import Context

MODEL_SERVER = "scicustom.tagger.model_server"  # the KServe ModelServer with the tagger model


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
    directory = serving_directory(ctx.tagger_artifacts, args.version, args.http_port, args.grpc_port, args.max_batch)
    # The serving runtime, imported by name as `scicustom service` imports a servicer: kserve reads
    # sys.argv when imported, so only the server process imports it.
    serve = importlib.import_module(MODEL_SERVER).serve
    serve(directory, args.host, args.http_port, args.grpc_port, max_batch=args.max_batch, threads=args.threads)
    return 0
