"""`scicustom ontology ...`: import ontologies, select units (Algorithm 1), derive unit keywords.

  import    load the packaged ontologies (or a user's OBO/OWL file) into the store, with a report
  report    print the store's report (terms, edges, roots per source)
  keywords  anchor the default units to the ontology and derive their keyword sets K_v
  units     run Algorithm 1 with the offline judge or an LLM judge and write a unit set
  agreement cross-validate the offline judge against the default units
"""

from __future__ import annotations

import argparse
import json
import logging
import os
import sys
from contextlib import closing
from pathlib import Path
from typing import TYPE_CHECKING

from scicustom.app.field_names import fields_renamed
from scicustom.app.ontology.importing import ImportOutcome, imported_sources_report
from scicustom.app.ontology.ontology_import import import_ontologies
from scicustom.app.ontology.unit_keywords import derive_unit_keywords
from scicustom.app.ontology.unit_selection import JudgeInputs, UnitSelectionRequest, select_imported_units
from scicustom.app.ontology.unit_sets import encode_unit_set
from scicustom.commands.command_output import emit
from scicustom.commands.progress_bars import ProgressBars
from scicustom.core.atomic_files import write_bytes_atomic
from scicustom.core.ontology.dag import SourceReport
from scicustom.core.ontology.keywords import MAX_KEYWORDS
from scicustom.core.ontology.unit_selection import MIN_DESCENDANTS

if TYPE_CHECKING:
    from scicustom.bootstrap import Context

log = logging.getLogger(__name__)
# The use cases name fields as OntologyService's request does; these are the flags that set them.
FLAGS = {"sources": "--source", "file.name": "--name", "select_units.judge": "--judge",
         "select_units.model": "--model", "select_units.sources": "--source",
         "select_units.min_descendants": "--min-descendants", "select_units.max_keywords": "--max-keywords",
         "max_keywords": "--max-keywords", "units": "--units", "folds": "--folds"}


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser("ontology", help="ontologies, knowledge units and their keywords")
    actions = parser.add_subparsers(dest="ontology_command", required=True, parser_class=type(parser))

    imp = actions.add_parser("import", help="import the packaged ontologies or a user's OBO/OWL file")
    imp.add_argument("--source", action="append", default=[], metavar="NAME",
                     help="packaged source to import (repeatable; default: all)")
    user = imp.add_mutually_exclusive_group()
    user.add_argument("--obo", type=Path, help="a user's OBO file to import")
    user.add_argument("--owl", type=Path, help="a user's OWL (RDF/XML) file to import")
    imp.add_argument("--name", help="source name for --obo/--owl (default: the file's stem)")
    imp.add_argument("--force", action="store_true", help="re-import sources already in the store")
    imp.set_defaults(handler=_import)

    report = actions.add_parser("report", help="print terms, edges and roots per imported source")
    report.set_defaults(handler=_report)

    keywords = actions.add_parser("keywords", help="anchor units and derive their keyword sets")
    keywords.add_argument("--units", type=Path, default=None, help="unit set (default: the 642 units)")
    keywords.add_argument("--out", type=Path, required=True, help="unit set with keywords and anchors")
    keywords.add_argument("--max-keywords", type=int, default=MAX_KEYWORDS)
    keywords.add_argument("--no-embedding", action="store_true", help="skip the MiniLM matching stage")
    keywords.set_defaults(handler=_keywords)

    units = actions.add_parser("units", help="select knowledge units with Algorithm 1")
    units.add_argument("--out", type=Path, required=True, help="unit set JSON to write")
    units.add_argument("--judge", choices=["offline", "llm"], default="offline")
    units.add_argument("--model", help="litellm model name for --judge llm, e.g. openai/gpt-4o")
    units.add_argument("--api-base", help="OpenAI-compatible server for --judge llm")
    units.add_argument("--api-key-env", default="OPENAI_API_KEY",
                       help="environment variable holding the API key for --judge llm")
    units.add_argument("--source", action="append", default=[], metavar="NAME",
                       help="DAGs to traverse (repeatable; default: every imported source)")
    units.add_argument("--min-descendants", type=int, default=MIN_DESCENDANTS)
    units.add_argument("--max-keywords", type=int, default=MAX_KEYWORDS)
    units.set_defaults(handler=_units)

    agree = actions.add_parser("agreement", help="cross-validated agreement of the offline judge")
    agree.add_argument("--folds", type=int, default=5)
    agree.add_argument("--out", type=Path, default=None, help="report JSON (default: in the store dir)")
    agree.set_defaults(handler=_agreement)


def _import(args: argparse.Namespace, ctx: Context) -> int:
    sources = ctx.ontology_sources
    user_file = args.obo or args.owl
    with fields_renamed(FLAGS):
        if user_file is not None:
            reads = [sources.file_read(args.name or user_file.stem, user_file, packaged_too=args.source)]
        else:
            reads = sources.packaged_reads(args.source)
        with ProgressBars("source") as bars:
            finished: list[ImportOutcome] = []

            def on_outcome(outcome: ImportOutcome) -> None:
                _print_outcome(outcome)
                finished.append(outcome)
                bars("import ontologies", len(finished), len(reads))

            bars("import ontologies", 0, len(reads))
            done = import_ontologies(ctx.ontology_store, ctx.ontology_workspace, reads, force=args.force,
                                     on_outcome=on_outcome)
    emit(args, {"sources": done.reports}, lambda: _report_text(done.reports))
    return 0


def _print_outcome(outcome: ImportOutcome) -> None:
    print(f"{outcome.source}: {outcome.status}", file=sys.stderr)


def _report(args: argparse.Namespace, ctx: Context) -> int:
    with closing(ctx.ontology_store()) as store:
        rows = imported_sources_report(store)
    emit(args, {"sources": rows}, lambda: _report_text(rows))
    return 0


def _report_text(rows: list[SourceReport]) -> str:
    return "\n".join([
        f"{'source':<10} {'terms':>8} {'edges':>8} {'roots':>6} {'depth':>5} {'cycles':>6}  version",
        *(f"{r.name:<10} {r.terms:>8} {r.edges:>8} {r.roots:>6} {r.max_depth:>5} {len(r.cycle_edges):>6}  {r.version}"
          for r in rows),
        f"{'total':<10} {sum(r.terms for r in rows):>8} {sum(r.edges for r in rows):>8} "
        f"{sum(r.roots for r in rows):>6}",
    ])


def _keywords(args: argparse.Namespace, ctx: Context) -> int:
    with fields_renamed(FLAGS):
        report = derive_unit_keywords(ctx.ontology_store, ctx.ontology_workspace, units=args.units,
                                      default_units=ctx.settings.units_file, out=args.out,
                                      max_keywords=args.max_keywords,
                                      encoder=None if args.no_embedding else ctx.embedder,
                                      label_vectors=ctx.label_vectors)
    emit(args, report, lambda: "\n".join([
        json.dumps({k: v for k, v in report.items() if k != "thin"}, indent=2),
        f"thin units (< {report['thin_below']} keywords): {len(report['thin'])}",
        *(f"  {u['id']} {u['name']}: {u['keywords']} keywords; {', '.join(u['anchors']) or '-'}"
          for u in report["thin"]),
    ]))
    return 0


def _units(args: argparse.Namespace, ctx: Context) -> int:
    judges = JudgeInputs(llm=lambda: ctx.llm_at(args.api_base, os.environ.get(args.api_key_env)),
                         keywords_file=ctx.ontology_workspace.keywords_file, label_vectors=ctx.label_vectors)
    with fields_renamed(FLAGS):
        request = UnitSelectionRequest(judge=args.judge, model=args.model or "", sources=tuple(args.source),
                                       min_descendants=args.min_descendants, max_keywords=args.max_keywords)
        chosen = select_imported_units(
            ctx.ontology_store, request, judges,
            progress=lambda r: log.info("judged %d nodes, %d units", sum(r.labels.values()), len(r.units)))
    if chosen.unparsed:
        print(f"{len(chosen.unparsed)} answers named no label (pruned): "
              f"{[t for t, _ in chosen.unparsed[:10]]}", file=sys.stderr)
    write_bytes_atomic(args.out, encode_unit_set(chosen.unit_set))
    result = chosen.result
    summary = {"judge": chosen.judge, "visited": result.visited, "judged": dict(result.labels),
               "backtracked_small": result.backtracked_small, "units": len(result.units), "out": str(args.out)}
    emit(args, summary, lambda: json.dumps(summary, indent=2))
    return 0


def _agreement(args: argparse.Namespace, ctx: Context) -> int:
    # Imported here: the offline judge's model (scikit-learn) takes seconds to import.
    from scicustom.app.ontology.judge_agreement import judge_agreement

    with fields_renamed(FLAGS):
        report = judge_agreement(ctx.ontology_store, ctx.ontology_workspace, folds=args.folds,
                                 default_units=ctx.settings.units_file, label_vectors=ctx.label_vectors,
                                 out=args.out)
    emit(args, report, lambda: json.dumps(report, indent=2))
    return 0
