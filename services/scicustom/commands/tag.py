"""`scicustom tag --input IN.jsonl --output OUT.jsonl`: tag questions with the trained tagger
(app/tagging/file_tagging.py says what goes in and out)."""

from __future__ import annotations

import argparse
from pathlib import Path

from scicustom.app.tagging.file_tagging import TaggerChoice, tag_rows, trained_choice, zero_shot_choice
from scicustom.bootstrap import Context
from scicustom.commands.command_output import emit
from scicustom.core.atomic_files import write_jsonl_atomic
from scicustom.core.jsonl import read_jsonl
from scicustom.ports import Tagger


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser("tag", help="tag a JSONL file of questions with knowledge units")
    parser.add_argument("--input", type=Path, required=True)
    parser.add_argument("--output", type=Path, required=True)
    parser.add_argument("--tagger", choices=["trained", "zeroshot"], default="trained")
    parser.add_argument("--version", help="a trained version (default: the current one)")
    parser.add_argument("--remote", metavar="HOST:PORT", help="call a tagger server instead of running in process")
    parser.add_argument("--protocol", choices=["grpc", "http"], default="grpc", help="with --remote")
    parser.set_defaults(handler=_tag)


def _choice(args: argparse.Namespace, ctx: Context) -> TaggerChoice:
    if args.tagger == "zeroshot":
        return zero_shot_choice(ctx.store, ctx.embedder, ctx.catalog)

    def remote() -> Tagger:
        return ctx.remote_tagger(args.remote, args.protocol)

    return trained_choice(ctx.tagger_artifacts, args.version, ctx.embedder, remote if args.remote else None)


def _tag(args: argparse.Namespace, ctx: Context) -> int:
    tagged = tag_rows(read_jsonl(args.input, "--input"), lambda: _choice(args, ctx))
    write_jsonl_atomic(args.output, tagged.rows)
    emit(args, {"tagged": len(tagged.rows), "tagger_version": tagged.tagger_version, "output": str(args.output)},
         lambda: f"tagged {len(tagged.rows)} questions with {tagged.tagger_version} -> {args.output}")
    return 0
