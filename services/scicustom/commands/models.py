"""`scicustom models prepare`: make the packaged local models ready to load, with no network.

MiniLM is loaded once (a missing package fails here, not in a pod); SmolLM2 is de-quantised from
its GGUF into the model cache (SCICUSTOM_MODEL_CACHE_DIR). The platform image runs this at build
time, so every pod starts with ready, read-only model files.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from scicustom.bootstrap import Context


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser("models", help="the local models that ship inside PyPI packages")
    actions = parser.add_subparsers(dest="action", required=True, parser_class=type(parser))
    prepare = actions.add_parser("prepare", help="load MiniLM and convert SmolLM2 into the model cache (idempotent)")
    prepare.set_defaults(handler=_prepare)


def _prepare(args: argparse.Namespace, ctx: Context) -> int:
    from scicustom.adapters.packaged_models import MINILM_NAME, SMOLLM_NAME, load_minilm, load_smollm
    from scicustom.config import Settings

    cache = Settings().model_cache
    cache.mkdir(parents=True, exist_ok=True)
    dimensions = load_minilm().get_embedding_dimension()
    load_smollm(cache)
    print(f"{MINILM_NAME} ready ({dimensions} dimensions); {SMOLLM_NAME} ready in {cache / SMOLLM_NAME}")
    return 0
