"""`scicustom models prepare`: make the packaged local models ready to load, with no network.

MiniLM is loaded once (a missing package fails here, not in a pod); SmolLM2 is de-quantised from
its GGUF into the model cache (SCICUSTOM_MODEL_CACHE_DIR) and its perplexity graph exported to ONNX
there (what builds score hardness with). The platform image runs this at build
time, so every pod starts with ready, read-only model files.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from scicustom.commands.command_output import emit

if TYPE_CHECKING:
    from scicustom.bootstrap import Context


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser("models", help="the local models that ship inside PyPI packages")
    actions = parser.add_subparsers(dest="action", required=True, parser_class=type(parser))
    prepare = actions.add_parser("prepare", help="load MiniLM and convert SmolLM2 into the model cache (idempotent)")
    prepare.set_defaults(handler=_prepare)


def _prepare(args: argparse.Namespace, ctx: Context) -> int:
    ready = ctx.prepare_local_models(lambda line: print(line, file=sys.stderr, flush=True))
    emit(args, ready,
         lambda: f"{ready.minilm} ready ({ready.minilm_dimensions} dimensions); "
                 f"{ready.smollm} ready in {ready.smollm_dir}; its ONNX perplexity graph in {ready.smollm_onnx_dir}")
    return 0
