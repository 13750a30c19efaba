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
import re
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scicustom.config import Settings
from scicustom.core.errors import InvalidInput, PreconditionFailed

if TYPE_CHECKING:
    from scicustom.bootstrap import Context

log = logging.getLogger(__name__)
KEYWORDS_FILE = "knowledge_units_with_keywords.json"


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
    keywords.add_argument("--max-keywords", type=int, default=200)
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
    units.add_argument("--min-descendants", type=int, default=10)
    units.add_argument("--max-keywords", type=int, default=200)
    units.set_defaults(handler=_units)

    agree = actions.add_parser("agreement", help="cross-validated agreement of the offline judge")
    agree.add_argument("--folds", type=int, default=5)
    agree.add_argument("--out", type=Path, default=None, help="report JSON (default: in the store dir)")
    agree.set_defaults(handler=_agreement)


def _ontology_dir() -> Path:
    return Settings().home / "ontology"


def _store() -> Any:
    from scicustom.adapters.ontology_store import OntologyStore

    return OntologyStore(_ontology_dir() / "ontology.sqlite")


def write_json_atomic(path: Path, payload: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        json.dump(payload, handle, indent=2, ensure_ascii=False)
        handle.write("\n")
    os.chmod(tmp, 0o644)  # mkstemp makes it private; the unit sets are meant to be shared
    os.replace(tmp, path)


def _import(args: argparse.Namespace, ctx: Context) -> int:
    from scicustom.adapters.ontology_obo_file import read_ontology_file
    from scicustom.adapters.ontology_package_cache import PackageCache
    from scicustom.ontology.importing import import_source
    from scicustom.ontology.packaged_sources import PACKAGED_SOURCES

    store = _store()
    try:
        user_file = args.obo or args.owl
        if user_file is not None:
            if args.source:
                raise InvalidInput("--source", "give either packaged sources or one --obo/--owl file")
            name = (args.name or user_file.stem).lower()
            if not re.fullmatch(r"[a-z0-9][a-z0-9_.-]*", name):
                raise InvalidInput("--name", f"{name!r} is not a valid source name (a-z, 0-9, _ . -)")
            if name in PACKAGED_SOURCES:
                raise InvalidInput("--name", f"{name!r} is a packaged source; choose another name")
            outcome = import_source(store, name, lambda: read_ontology_file(user_file, name),
                                    force=args.force, strict=True)
            print(f"{outcome.source}: {outcome.status}", file=sys.stderr)
        else:
            unknown = sorted(set(args.source) - set(PACKAGED_SOURCES))
            if unknown:
                raise InvalidInput("--source", f"unknown {unknown}; choose from {sorted(PACKAGED_SOURCES)}")
            cache = PackageCache(Settings().cache_dir / "ontology")
            for name in args.source or list(PACKAGED_SOURCES):
                outcome = import_source(store, name, lambda n=name: PACKAGED_SOURCES[n](cache),
                                        force=args.force, strict=False)
                print(f"{outcome.source}: {outcome.status}", file=sys.stderr)
        _print_report(store)
        write_json_atomic(_ontology_dir() / "import_report.json",
                          {"sources": [r.as_dict() for r in store.report()]})
    finally:
        store.close()
    return 0


def _report(args: argparse.Namespace, ctx: Context) -> int:
    store = _store()
    try:
        if not store.source_names():
            raise PreconditionFailed("no ontology imported yet; run `scicustom ontology import`")
        _print_report(store)
    finally:
        store.close()
    return 0


def _print_report(store: Any) -> None:
    rows = store.report()
    print(f"{'source':<10} {'terms':>8} {'edges':>8} {'roots':>6} {'depth':>5} {'cycles':>6}  version")
    for r in rows:
        print(f"{r.name:<10} {r.terms:>8} {r.edges:>8} {r.roots:>6} {r.max_depth:>5} "
              f"{len(r.cycle_edges):>6}  {r.version}")
    print(f"{'total':<10} {sum(r.terms for r in rows):>8} {sum(r.edges for r in rows):>8} "
          f"{sum(r.roots for r in rows):>6}")


def _load_dags(store: Any, names: list[str] | None = None) -> list[Any]:
    if not store.source_names():
        raise PreconditionFailed("no ontology imported yet; run `scicustom ontology import`")
    unknown = sorted(set(names or ()) - set(store.source_names()))
    if unknown:
        raise InvalidInput("--source", f"not imported: {unknown}")
    return list(store.load_dags(names))


def _read_unit_set(path: Path | None) -> dict[str, Any]:
    from scicustom.core.units import UnitCatalog

    path = path or Settings().units_file
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise InvalidInput("--units", f"cannot read {path}: {exc}") from exc
    UnitCatalog.from_mapping(data)  # validates ids and names
    return dict(data)


def _vector_cache(encoder: Any) -> Any:
    from scicustom.adapters.ontology_label_vectors import LabelVectorCache

    return LabelVectorCache(_ontology_dir() / "label_vectors.npz", encoder)


def _keywords(args: argparse.Namespace, ctx: Context) -> int:
    from scicustom.adapters.minilm_embedder import MiniLMEmbedder
    from scicustom.ontology.unit_keywords import anchor_unit_set, coverage, with_keywords

    if args.max_keywords < 1:
        raise InvalidInput("--max-keywords", "must be at least 1")
    data = _read_unit_set(args.units)
    store = _store()
    try:
        dags = _load_dags(store)
    finally:
        store.close()
    encoder = None if args.no_embedding else MiniLMEmbedder(batch_size=Settings().embed_batch)
    vectors = None if encoder is None else _vector_cache(encoder)
    anchors = anchor_unit_set(data, dags, encoder, vectors)
    result = with_keywords(data, anchors, dags, cap=args.max_keywords)
    report = coverage(result)
    write_json_atomic(args.out, result)
    if args.units is None:
        write_json_atomic(_ontology_dir() / KEYWORDS_FILE, result)
    write_json_atomic(_ontology_dir() / "keywords_coverage.json", report)
    print(json.dumps({k: v for k, v in report.items() if k != "thin"}, indent=2))
    print(f"thin units (< {report['thin_below']} keywords): {len(report['thin'])}")
    for unit in report["thin"]:
        print(f"  {unit['id']} {unit['name']}: {unit['keywords']} keywords; {', '.join(unit['anchors']) or '-'}")
    return 0


def _units(args: argparse.Namespace, ctx: Context) -> int:
    from scicustom.core.ontology.unit_selection import select_units
    from scicustom.ontology.unit_sets import selection_to_unit_set

    if args.min_descendants < 1:
        raise InvalidInput("--min-descendants", "must be at least 1")
    store = _store()
    try:
        dags = _load_dags(store, args.source or None)
    finally:
        store.close()
    if args.judge == "llm":
        judge = _llm_judge(args)
        result = select_units(dags, judge, min_descendants=args.min_descendants,
                              progress=lambda r: log.info("judged %d nodes, %d units", sum(r.labels.values()),
                                                          len(r.units)))
        if judge.unparsed:
            print(f"{len(judge.unparsed)} answers named no label (pruned): "
                  f"{[t for t, _ in judge.unparsed[:10]]}", file=sys.stderr)
    else:
        judge, result = _offline_selection(dags, args.min_descendants)
    unit_set = selection_to_unit_set(result, dags, judge_name=judge.name, max_keywords=args.max_keywords)
    write_json_atomic(args.out, unit_set)
    print(json.dumps({"judge": judge.name, "visited": result.visited, "judged": dict(result.labels),
                      "backtracked_small": result.backtracked_small, "units": len(result.units),
                      "out": str(args.out)}, indent=2))
    return 0


def _llm_judge(args: argparse.Namespace) -> Any:
    from scicustom.adapters.litellm_llm import LiteLLMAdapter
    from scicustom.adapters.llm_response_cache import LLMResponseCache
    from scicustom.core.ontology.llm_judge import LLMGranularityJudge

    if not args.model:
        raise InvalidInput("--model", "--judge llm needs a litellm model name")
    settings = Settings()
    llm = LiteLLMAdapter(LLMResponseCache(settings.llm_cache_path / "responses.sqlite"),
                         max_retries=settings.llm_max_retries,
                         requests_per_minute=settings.llm_requests_per_minute,
                         timeout_s=settings.llm_timeout_s, api_base=args.api_base,
                         api_key=os.environ.get(args.api_key_env))
    return LLMGranularityJudge(llm, args.model)


def _training_inputs(dags: list[Any], min_descendants: int) -> tuple[Any, Any]:
    from scicustom.adapters.minilm_embedder import MiniLMEmbedder
    from scicustom.core.units import NON_SCIENTIFIC
    from scicustom.ontology.judge_training import JudgeWorkbench, exemplars_from_units

    path = _ontology_dir() / KEYWORDS_FILE
    if not path.exists():
        raise PreconditionFailed("the offline judge learns from the anchored default units; "
                                 "run `scicustom ontology keywords --out FILE` first")
    # Every scientific unit is an exemplar by name; those with anchors also give node targets.
    units = [u for u in json.loads(path.read_text(encoding="utf-8"))["knowledge_units"]
             if u["name"] != NON_SCIENTIFIC]
    vectors = _vector_cache(MiniLMEmbedder(batch_size=Settings().embed_batch))
    return JudgeWorkbench(dags, vectors, min_descendants), exemplars_from_units(units, vectors)


def _offline_selection(dags: list[Any], min_descendants: int) -> tuple[Any, Any]:
    from scicustom.ontology.judge_training import in_sample

    bench, exemplars = _training_inputs(dags, min_descendants)
    return in_sample(bench, exemplars)


def _agreement(args: argparse.Namespace, ctx: Context) -> int:
    from scicustom.core.ontology.agreement import agreement
    from scicustom.core.units import NON_SCIENTIFIC
    from scicustom.ontology.judge_training import (
        cross_validate,
        in_sample,
        recall_ceiling,
        units_with_selected_anchor,
    )

    if args.folds < 2:
        raise InvalidInput("--folds", "must be at least 2")
    store = _store()
    try:
        dags = _load_dags(store)
    finally:
        store.close()
    bench, exemplars = _training_inputs(dags, 10)
    defaults = [str(u["name"]) for u in _read_unit_set(None)["knowledge_units"] if u["name"] != NON_SCIENTIFIC]
    report = {
        "reference_units": len(defaults),
        "exemplars_with_training_anchors": len({u for us in exemplars.anchored.values() for u in us}),
        "judged_nodes": len(bench.keys),
        "ceiling": recall_ceiling(bench, defaults),
        "cross_validation": cross_validate(bench, exemplars, folds=args.folds),
    }
    _, result = in_sample(bench, exemplars)
    report["in_sample"] = {"units_found": len(result.units), "judged": dict(result.labels),
                           "visited": result.visited, **agreement(result.unit_names(), defaults).as_dict(),
                           "units_with_selected_anchor": units_with_selected_anchor(
                               result, exemplars, set(range(len(exemplars.names)))),
                           "note": "trained on every default unit: not a held-out figure"}
    write_json_atomic(args.out or _ontology_dir() / "judge_agreement.json", report)
    print(json.dumps(report, indent=2))
    return 0
