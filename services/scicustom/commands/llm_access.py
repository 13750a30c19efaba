"""The flags that point the scorer commands' LLM calls at a server, and the client they give. Every
call goes through the persistent response cache: a rerun of a command finds every answer there."""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING

from scicustom.commands.progress_bars import CountedLLM
from scicustom.core.errors import InvalidInput
from scicustom.ports import LLM

if TYPE_CHECKING:
    from scicustom.bootstrap import Context


def add_llm_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--api-base", metavar="URL",
                        help="OpenAI-compatible server for every LLM call (vLLM, Ollama, a proxy); "
                             "default: the provider of each model name")
    parser.add_argument("--api-key-env", metavar="VAR",
                        help="environment variable that holds the API key; default: the provider's own")


def llm_from_arguments(args: argparse.Namespace, ctx: Context) -> LLM:
    """The client of --api-base with the key in --api-key-env (not the configured gateway)."""
    api_key = None
    if args.api_key_env:
        api_key = os.environ.get(args.api_key_env)
        if api_key is None:
            raise InvalidInput("--api-key-env", f"environment variable {args.api_key_env} is not set")
    return CountedLLM(ctx.llm_at(args.api_base, api_key))
