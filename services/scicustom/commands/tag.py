"""`scicustom tag --input IN.jsonl --output OUT.jsonl`: tag questions with the trained tagger.

Each input line has `id` and `question` (and optional `options`, `answer`); each output line is
the input plus `predicted_units` (unit names, best first) and `scores` (aligned). The text tagged is
the question, plus "Answer: ..." when there is an answer, as corpus items are tagged.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scicustom.bootstrap import Context
from scicustom.commands.jsonl_files import read_jsonl, write_jsonl
from scicustom.core.errors import InvalidInput

if TYPE_CHECKING:
    from scicustom.bootstrap import Context


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser("tag", help="tag a JSONL file of questions with knowledge units")
    parser.add_argument("--input", type=Path, required=True)
    parser.add_argument("--output", type=Path, required=True)
    parser.add_argument("--tagger", choices=["trained", "zeroshot"], default="trained")
    parser.add_argument("--version", help="a trained version (default: the current one)")
    parser.add_argument("--remote", metavar="HOST:PORT", help="call a tagger server instead of running in process")
    parser.add_argument("--protocol", choices=["grpc", "http"], default="grpc", help="with --remote")
    parser.set_defaults(handler=_tag)


def item_text(where: str, row: dict[str, Any]) -> str:
    if not isinstance(row.get("id"), str | int) or str(row.get("id")).strip() == "":
        raise InvalidInput(where, "needs a non-empty 'id'")
    question = row.get("question")
    if not isinstance(question, str) or not question.strip():
        raise InvalidInput(where, "needs a non-empty string 'question'")
    options = row.get("options")
    if options is not None and not (isinstance(options, list) and all(isinstance(o, str) for o in options)):
        raise InvalidInput(where, "'options' must be a list of strings")
    answer = row.get("answer")
    if answer is not None and not isinstance(answer, str):
        raise InvalidInput(where, "'answer' must be a string")
    return f"{question.strip()}\nAnswer: {answer.strip()}" if answer and answer.strip() else question.strip()


def _tag(args: argparse.Namespace, ctx: Context) -> int:
    rows = read_jsonl(args.input, "--input")
    texts = [item_text(where, row) for where, row in rows]
    tagger: Any
    if args.tagger == "zeroshot":
        from scicustom.app.index_keys import CALIBRATION_KEY
        from scicustom.core.zero_shot_tagger import ZeroShotParams, ZeroShotTagger

        if not ctx.store.exists(CALIBRATION_KEY):
            raise InvalidInput("--tagger", "the zero-shot tagger is not calibrated; run `scicustom corpus tag`")
        threshold = float(json.loads(ctx.store.get_bytes(CALIBRATION_KEY))["threshold"])
        tagger = ZeroShotTagger(ctx.embedder, ctx.catalog, ZeroShotParams(threshold=threshold))
        names = {u.id: u.name for u in ctx.catalog.units}
    else:
        from scicustom.tagger.artifact import current_artifact_dir, load_artifact

        artifact = load_artifact(current_artifact_dir(ctx.settings.home, args.version))
        names = dict(zip(artifact.unit_ids, artifact.unit_names, strict=True))
        if args.remote:
            from scicustom.adapters.triton_tagger import TritonTagger

            tagger = TritonTagger(args.remote, protocol=args.protocol)
        else:
            from scicustom.adapters.onnx_tagger import OnnxTagger

            tagger = OnnxTagger(artifact.directory)
    tags = tagger.tag(texts) if texts else []
    out = [{**row, "predicted_units": [names.get(s.unit_id, s.unit_id) for s in assigned],
            "scores": [s.score for s in assigned]} for (_, row), assigned in zip(rows, tags, strict=True)]
    write_jsonl(args.output, out)
    print(f"tagged {len(out)} questions with {tagger.version} -> {args.output}")
    return 0
