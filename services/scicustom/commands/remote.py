"""`scicustom remote ...`: builds on a remote BuildService through the client SDK. Only
SCICUSTOM_BUILD_SERVICE_ADDRESS is needed: the files come down the DownloadArtifacts stream, so
this side holds no object-store, Kafka or Elasticsearch settings.

  remote build --requirement R [build options] [--wait] [--download DIR [--force]]
  remote get ID | remote list [--page-size N] [--page-token T] | remote watch ID | remote cancel ID
  remote download ID --out DIR [--name FILE]... [--force]

Exit codes: 0; 1 a build that failed or was cancelled; 2 bad input or an unreachable service;
3 a thin-coverage build (its small benchmark is still written), as `scicustom build`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from scicustom.app.build.output_writer import check_output_dir
from scicustom.app.build.request import BuildOptions, requirement_argument, validated_request
from scicustom.commands.command_output import as_json, emit
from scicustom.core.build.pipeline import METHODS
from scicustom.core.errors import PreconditionFailed

if TYPE_CHECKING:
    from scicustom.bootstrap import Context
    from scicustom.client.build_types import Build
    from scicustom.client.builds import BuildsClient


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser("remote", help="builds on a remote BuildService: create, watch, download")
    actions = parser.add_subparsers(dest="action", required=True)
    build = actions.add_parser("build", help="queue a build; --wait follows it, --download DIR fetches its files")
    build.add_argument("--requirement", required=True,
                       help="a requirement YAML file (the SciCustom release format) or free text")
    build.add_argument("--k1", type=int, help="voted units kept (default: the file's, else 10)")
    build.add_argument("--k2", type=int, help="maximum benchmark size (default: the file's, else 100)")
    build.add_argument("--proxy-samples", type=int, help="candidate subsets drawn (default 100)")
    build.add_argument("--seed", type=int, default=0)
    build.add_argument("--method", choices=METHODS, default="scicustom")
    build.add_argument("--relevance-quantile", type=float, default=0.95,
                       help="local relevance judges: background quantile an item must exceed")
    build.add_argument("--llm-judges", action="store_true", help="the requirement file's LLM judges")
    build.add_argument("--min-items", type=int, help="thin-coverage floor (default 10)")
    build.add_argument("--since-build", metavar="BUILD_ID", default="",
                       help="a succeeded build to compare with: the outputs gain diff.json")
    build.add_argument("--request-id", default=None,
                       help="idempotency key: the same key again names the same build (default: a fresh one)")
    build.add_argument("--wait", action="store_true", help="follow the build until it ends")
    build.add_argument("--download", type=Path, metavar="DIR",
                       help="write the build's files into DIR once it succeeded (created atomically; implies --wait)")
    build.add_argument("--force", action="store_true",
                       help="replace the --download directory if it is empty or a previous build")
    build.add_argument("--timeout", type=float, default=None, help="seconds --wait waits at most (default: no limit)")
    for name, text in (("get", "a build's state"), ("watch", "follow a build until it ends"),
                       ("cancel", "stop a queued or running build at its next stage")):
        action = actions.add_parser(name, help=text)
        action.add_argument("build_id")
    listing = actions.add_parser("list", help="builds, newest first, one page")
    listing.add_argument("--page-size", type=int, default=0, help="1..100 (default 20)")
    listing.add_argument("--page-token", default="", help="the next_page_token of the previous page")
    download = actions.add_parser("download", help="write a succeeded build's files into a directory")
    download.add_argument("build_id")
    download.add_argument("--out", type=Path, required=True, help="output directory (created atomically)")
    download.add_argument("--name", action="append", default=[], metavar="FILE",
                          help="only this file (repeatable), e.g. benchmark.jsonl")
    download.add_argument("--force", action="store_true", help="replace --out if it is empty or a previous build")
    for action in actions.choices.values():
        action.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                            help="print one JSON document (as the global --json)")
    parser.set_defaults(handler=_run)


def _run(args: argparse.Namespace, ctx: Context) -> int:
    from scicustom.client.build_client import builds_client

    # The one flag check that must come before the build: nothing is queued for a refused --download.
    if args.action == "build" and args.download is not None:
        check_output_dir(args.download, args.force, "--download")
    if args.action == "download":
        check_output_dir(args.out, args.force, "--out")
    with builds_client(ctx) as client:
        if args.action == "build":
            return _build(args, client)
        if args.action == "get":
            build = client.get(args.build_id)
            emit(args, build, lambda: _describe(build))
            return 0
        if args.action == "list":
            page = client.list(args.page_size, args.page_token)
            emit(args, page, lambda: "\n".join([_line(b) for b in page.builds] +
                                               ([f"next page: --page-token {page.next_page_token}"]
                                                if page.next_page_token else [])))
            return 0
        if args.action == "watch":
            from scicustom.client.build_client import follow

            build = follow(client, args.build_id)
            emit(args, build, lambda: _line(build))
            return _exit(build)
        if args.action == "cancel":
            build = client.cancel(args.build_id)
            emit(args, build, lambda: _line(build))
            return 0
        files = client.download(args.build_id, args.out, names=args.name, force=args.force)
        emit(args, {"out": str(args.out), "files": files},
             lambda: f"wrote {args.out}/ ({', '.join(f.name for f in files)})")
        return 0


def _build(args: argparse.Namespace, client: BuildsClient) -> int:
    from scicustom.client.build_client import create_request, follow, refused, report
    from scicustom.client.build_types import BuildStatus
    from scicustom.client.builds import new_request_id

    options = BuildOptions(method=args.method, k1=args.k1, k2=args.k2, proxy_samples=args.proxy_samples,
                           seed=args.seed, llm_judges=args.llm_judges, relevance_quantile=args.relevance_quantile,
                           min_items=args.min_items)
    # Checked here first, with the flags named as typed; the service checks again.
    request = validated_request(requirement_argument(args.requirement), options,
                                quantile_field="--relevance-quantile", llm_field="--llm-judges")
    message = create_request(request)
    message.since_build_id = args.since_build
    message.request_id = new_request_id() if args.request_id is None else args.request_id
    build = client.submit(message)
    print(f"build {build.build_id} queued at {client.address}", file=sys.stderr)
    if not args.wait and args.download is None:
        emit(args, build, lambda: build.build_id)
        return 0
    build = follow(client, build.build_id) if args.timeout is None else _waited(client, build.build_id, args.timeout)
    if build.status != BuildStatus.SUCCEEDED:
        return refused(build)
    if args.download is None:
        emit(args, build, lambda: _line(build))
        return _exit(build)
    files = client.download(build, args.download, force=args.force)
    if getattr(args, "json", False):
        print(as_json({"build": build, "out": str(args.download), "files": files}))
        return _exit(build)
    return report(build, args.download, [f.name for f in files])


def _waited(client: BuildsClient, build_id: str, timeout_s: float) -> Build:
    from scicustom.client.rpc_errors import WaitTimeout

    try:
        return client.wait(build_id, timeout_s)
    except WaitTimeout as exc:
        raise PreconditionFailed(f"{exc}; it goes on: `scicustom remote watch {build_id}`") from None


def _exit(build: Build) -> int:
    from scicustom.client.build_client import EXIT_BUILD_FAILED, EXIT_THIN_COVERAGE
    from scicustom.client.build_types import BuildStatus

    if build.status in (BuildStatus.FAILED, BuildStatus.CANCELLED):
        return EXIT_BUILD_FAILED
    return EXIT_THIN_COVERAGE if build.thin else 0


def _line(build: Build) -> str:
    extra = (f"{build.n_mcq} MCQs, coverage {build.coverage_status}" if build.files
             else build.error or ", ".join(s.stage for s in build.stages if s.done) or "-")
    return f"{build.build_id}  {build.status}  {build.requirement_name}  {extra}"


def _describe(build: Build) -> str:
    lines = [f"build        {build.build_id} ({build.status})", f"requirement  {build.requirement_name} "
             f"(method {build.method})", f"created      {build.created.isoformat()}",
             "stages       " + "  ".join(f"{s.stage}{'' if s.done else ' (pending)'} {s.seconds:.2f}"
                                       for s in build.stages)]
    if build.error:
        lines.append(f"error        {build.error}" + (f" (field {build.error_field})" if build.error_field else ""))
    if build.files:
        lines.append(f"benchmark    {build.n_mcq} MCQs, coverage {build.coverage_status}")
        lines += [f"file         {f.name}  {f.size_bytes} bytes  sha256 {f.sha256}" for f in build.files]
    if build.thin_units:
        lines.append(f"thin units   {', '.join(build.thin_units)}")
    return "\n".join(lines)
