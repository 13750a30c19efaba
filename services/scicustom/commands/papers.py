"""`scicustom papers ...`: submit papers, import MEDLINE abstracts, watch the incoming prefix, and
report papers' states.

  papers submit FILE... [--wait] [--json]   PDF, JATS/NXML, GROBID TEI, Markdown, HTML, MEDLINE XML
  papers import --medline FILE.xml[.gz]     one paper per PubmedArticle (its abstract)
  papers watch-incoming [--once]            submit each new object under incoming/ in the object store
  papers list [--state S] | papers get ID

On the cluster profile a submission is stored in S3 and announced on Kafka; the parse, extract, tag and
index workers do the rest and --wait follows the paper there. On the embedded profile the paper stages
run in this process on the in-process bus, and the items go into the corpus; `--index` then tags the
corpus and rebuilds the unit index (what `scicustom corpus tag` does), so builds see them.
Exit code 0, or 1 when a paper FAILED (its reason is in the output); 2 for bad arguments.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from scicustom.app.papers.corpus_addition import add_batches_to_corpus
from scicustom.app.papers.incoming import IncomingPoller
from scicustom.app.papers.medline_import import import_medline
from scicustom.app.papers.paper_records import EXTRACTORS, NEEDS_LLM, PaperStatus, list_papers, paper_status
from scicustom.app.papers.submission import SubmitLimits, check_file_name, submit_paper_stream
from scicustom.bootstrap import Context
from scicustom.core.errors import InvalidInput, NotFound
from scicustom.workers.paper_events import PaperSubmittedPublisher, RefusedPaperDeadLetters
from scicustom.workers.topics import PAPER_STAGES, Topics

CHUNK = 1 << 20
EXIT_PAPER_FAILED = 1


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser("papers", help="ingest papers: submit, import MEDLINE, watch the incoming prefix")
    actions = parser.add_subparsers(dest="action", required=True)
    submit = actions.add_parser("submit", help="submit paper files")
    submit.add_argument("files", nargs="+", type=Path, metavar="FILE")
    imp = actions.add_parser("import", help="import MEDLINE/PubMed abstracts, one paper each")
    imp.add_argument("--medline", type=Path, required=True, metavar="FILE.xml.gz")
    imp.add_argument("--limit", type=int, default=None, help="only the first N articles")
    watch = actions.add_parser("watch-incoming", help="submit new objects under the store's incoming/ prefix")
    watch.add_argument("--once", action="store_true", help="one listing, then exit")
    watch.add_argument("--interval", type=float, default=10.0, help="seconds between listings")
    for p in (submit, imp, watch):
        p.add_argument("--wait", action="store_true",
                       help="cluster: wait until each paper is indexed or failed (embedded always runs to the end)")
        p.add_argument("--timeout", type=float, default=600.0, help="seconds --wait waits at most")
        p.add_argument("--index", action="store_true",
                       help="embedded: tag the corpus and rebuild the unit index afterwards (corpus tag)")
        p.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                       help="print JSON: {\"papers\": [...]} (as the global --json)")
    lst = actions.add_parser("list", help="papers and their states")
    lst.add_argument("--state", choices=["submitted", "parsed", "extracted", "indexed", "failed", "superseded"])
    lst.add_argument("--limit", type=int, default=1000)
    lst.add_argument("--json", action="store_true", default=argparse.SUPPRESS)
    get = actions.add_parser("get", help="one paper's state")
    get.add_argument("paper_id")
    get.add_argument("--json", action="store_true", default=argparse.SUPPRESS)
    parser.set_defaults(handler=_run)


def _chunks(path: Path) -> Iterator[bytes]:
    with path.open("rb") as f:
        while chunk := f.read(CHUNK):
            yield chunk


def _render(statuses: Sequence[PaperStatus], as_json: bool, names: Sequence[str] | None = None) -> None:
    records = [s.to_record() for s in statuses]
    if names is not None:
        for record, name in zip(records, names, strict=True):
            record["file"] = name
    if as_json:
        print(json.dumps({"papers": records}, indent=1, ensure_ascii=False))
        return
    for record in records:
        counts = ", ".join(f"{k} {v}" if record["extractors"].get(e) != NEEDS_LLM else f"{k}: {NEEDS_LLM}"
                           for e, k, v in _by_extractor(record)) or "no instances"
        line = f"{record['id']}  {record['state']:<10}  {record['file']}  ({counts})"
        if record.get("reason"):
            line += f"  reason: {record['reason']}"
        print(line)


def _by_extractor(record: dict[str, Any]) -> list[tuple[str, str, int]]:
    kinds = {"qa": "qa", "recipes": "recipe", "hypotheses": "hypothesis"}
    return [(e, kinds[e], int(record["instances"].get(kinds[e], 0))) for e in EXTRACTORS if e in record["extractors"]]


def _settle(ctx: Context, ids: Sequence[str], args: argparse.Namespace) -> list[PaperStatus]:
    """Runs (embedded) or waits for (cluster, --wait) the stages until every paper is terminal."""
    store = ctx.store

    def statuses() -> list[PaperStatus]:
        return [paper_status(store, i) for i in ids]

    def done() -> bool:
        return all(s.terminal for s in statuses())

    if not ctx.cluster:
        def extracted() -> bool:
            return all(s.extracted for s in statuses())

        from scicustom.commands.worker import stage_handlers
        from scicustom.workers.in_process import run_until

        topics = Topics(ctx.settings.topic_prefix)
        run_until(ctx.event_bus, topics, stage_handlers(ctx, list(PAPER_STAGES)), extracted, args.timeout)
        batches = [b for s in statuses() if s.state != "superseded" for b in s.batch_ids]
        added = add_batches_to_corpus(ctx.corpus, batches)
        if args.index and added:
            from scicustom.app.tagging.corpus_tagging import tag_corpus

            tag_corpus(ctx.corpus, ctx.embedder, ctx.catalog, ctx.unit_index_writer, show_progress=False)
    elif args.wait:
        deadline = time.monotonic() + args.timeout
        while not done() and time.monotonic() < deadline:
            time.sleep(1.0)
    return statuses()


def _submitters(ctx: Context) -> tuple[PaperSubmittedPublisher, RefusedPaperDeadLetters, SubmitLimits]:
    topics = Topics(ctx.settings.topic_prefix)
    return (PaperSubmittedPublisher(ctx.store, ctx.event_bus, topics), RefusedPaperDeadLetters(ctx.event_bus, topics),
            SubmitLimits(ctx.settings.paper_max_bytes))


def _exit(statuses: Sequence[PaperStatus]) -> int:
    return EXIT_PAPER_FAILED if any(s.state == "failed" for s in statuses) else 0


def _submit(args: argparse.Namespace, ctx: Context) -> int:
    for i, path in enumerate(args.files):
        if not path.is_file():
            raise InvalidInput(f"FILE[{i}]", f"{path} is not a file")
        check_file_name(path.name)
    if ctx.settings.paper_service_address:  # remote: the bytes go up the gRPC stream, no store access
        from scicustom.client.environment_options import options_from_settings
        from scicustom.client.paper_client import submit_remote

        remote = submit_remote(ctx.settings.paper_service_address, args.files, args.wait, args.timeout,
                               options_from_settings(ctx.settings))
        _render(remote, args.json, [str(p) for p in args.files])
        return _exit(remote)
    announce, dead_letter, limits = _submitters(ctx)
    submitted = [submit_paper_stream(ctx.store, announce, dead_letter, path.name, _chunks(path), limits,
                                     declared_size=path.stat().st_size) for path in args.files]
    settled = _settle(ctx, [s.paper_id for s in submitted], args)
    for before, after in zip(submitted, settled, strict=True):
        after.duplicate = before.duplicate
    _render(settled, args.json, [str(p) for p in args.files])
    return _exit(settled)


def _import(args: argparse.Namespace, ctx: Context) -> int:
    if args.limit is not None and args.limit < 1:
        raise InvalidInput("--limit", "must be >= 1")
    announce, dead_letter, limits = _submitters(ctx)
    report = import_medline(ctx.store, announce, dead_letter, args.medline, limits, args.limit)
    settled = _settle(ctx, [s.paper_id for s in report.papers], args)
    if args.json:
        _render(settled, True)
    else:
        states: dict[str, int] = {}
        instances = 0
        for status in settled:
            states[status.state] = states.get(status.state, 0) + 1
            instances += sum(status.instances.values())
        print(f"{report.articles} articles: {report.submitted} submitted, {report.duplicates} already here, "
              f"{report.failed} refused; states {dict(sorted(states.items()))}; {instances} instances")
    return _exit(settled)


def _watch(args: argparse.Namespace, ctx: Context) -> int:
    announce, dead_letter, limits = _submitters(ctx)
    poller = IncomingPoller(ctx.store, announce, dead_letter, limits)
    code = 0
    while True:
        taken = poller.poll()
        if taken:
            settled = _settle(ctx, [s.paper_id for s in taken], args)
            _render(settled, args.json)
            code = max(code, _exit(settled))
        if args.once:
            return code
        time.sleep(max(args.interval, 0.1))


def _run(args: argparse.Namespace, ctx: Context) -> int:
    if args.action == "submit":
        return _submit(args, ctx)
    if args.action == "import":
        return _import(args, ctx)
    if args.action == "watch-incoming":
        return _watch(args, ctx)
    if args.action == "list":
        statuses = list_papers(ctx.store, args.state or "", args.limit)
        _render(statuses, args.json)
        return 0
    try:
        status = paper_status(ctx.store, args.paper_id)
    except NotFound as exc:
        raise InvalidInput("paper_id", exc.problem) from None
    _render([status], args.json)
    return 0
