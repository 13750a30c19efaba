"""`scicustom score sciif`: the SciIF audit of model answers (paper 002).

    scicustom score sciif --items ITEMS.jsonl --answers ANSWERS.jsonl --out REPORT.json
        [--judges MODEL MODEL] [--mode strict|loose] [--gate-on-correctness]
        [--generate-with MODEL] [--catalog CATALOG.yaml] [--no-evidence-patterns] [--workers N]

ITEMS.jsonl, one problem per line:
    {"id": "phys-1", "subject": "physics", "question": "...",
     "constraints": ["Units Standard", "Boundary Conditions"],      (or "A、B, C" as in the release)
     "reference_answer": "...",                                      (optional; judges see it)
     "final_answer": {"value": 4.712e-14, "unit": "m^3/s"}}          (optional; see below)
  "final_answer" drives the rule-based correctness check: {"value", "unit"?, "rel_tol"?, "abs_tol"?,
  "sig_figs"? (default 4)}, {"range": [lo, hi], "unit"?}, {"expression": "mu_0*I/(2*r)"} or
  {"choice": "C"}, or a list of these for multi-part problems. Rows of the authors' release
  (question_with_constraints, answer) are read as they are.
ANSWERS.jsonl, one answer per line: {"id": "phys-1", "model": "gpt-x", "answer": "..."}; several
  models may share the file and are reported side by side.

Without --judges only the rules decide: points they cannot decide are reported as undecided, never
as passed. With --generate-with MODEL, answers missing for that model are first generated with the
paper's answer prompt and added to ANSWERS.jsonl.
"""

from __future__ import annotations

import argparse
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml

from scicustom.commands.jsonl_files import read_jsonl, write_json, write_jsonl
from scicustom.commands.llm_access import add_llm_arguments, build_llm, usage_summary
from scicustom.config import RESOURCES
from scicustom.core.errors import InvalidInput
from scicustom.core.sciif.audit import SciIFAuditor, generate_answer
from scicustom.core.sciif.catalog import Catalog, parse_catalog
from scicustom.core.sciif.evidence_rules import RuleVerifier
from scicustom.core.sciif.items import ModelAnswer, SciIFItem, parse_answers, parse_items
from scicustom.core.sciif.quantities import UnitParser
from scicustom.core.sciif.report import build_report
from scicustom.ports import LLM

if TYPE_CHECKING:
    from scicustom.bootstrap import Context

DEFAULT_CATALOG = RESOURCES / "sciif" / "catalog.yaml"


def register(suites: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = suites.add_parser("sciif", help="SciIF: scientific instruction-following audit",
                               description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--items", type=Path, required=True, help="ITEMS.jsonl (problems and constraints)")
    parser.add_argument("--answers", type=Path, required=True, help="ANSWERS.jsonl (model answers)")
    parser.add_argument("--out", type=Path, required=True, help="REPORT.json to write")
    parser.add_argument("--judges", nargs="+", default=[], metavar="MODEL",
                        help="litellm model names of the judges; a point passes only if all pass it "
                             "(the paper uses two)")
    parser.add_argument("--mode", choices=["strict", "loose"], default="strict",
                        help="strict: every evidence point must pass; loose: the MAIN points")
    parser.add_argument("--gate-on-correctness", action="store_true",
                        help="count an item as compliant only when its answer is also correct")
    parser.add_argument("--generate-with", metavar="MODEL",
                        help="first generate the missing answers of MODEL with the paper's answer prompt")
    parser.add_argument("--catalog", type=Path, default=DEFAULT_CATALOG,
                        help="constraint catalog YAML (default: the packaged SciIF catalog)")
    parser.add_argument("--no-evidence-patterns", action="store_true",
                        help="do not fail points on missing evidence patterns; leave them to the judges")
    parser.add_argument("--workers", type=int, default=4, help="items audited concurrently")
    add_llm_arguments(parser)
    parser.set_defaults(handler=run)


def load_catalog(path: Path) -> Catalog:
    if not path.is_file():
        raise InvalidInput("--catalog", f"{path} does not exist")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise InvalidInput("--catalog", f"not YAML: {exc}") from exc
    if not isinstance(data, dict):
        raise InvalidInput("--catalog", "expected a mapping")
    return parse_catalog(data)


def run(args: argparse.Namespace, ctx: Context) -> int:
    if args.workers < 1:
        raise InvalidInput("--workers", "must be at least 1")
    catalog = load_catalog(args.catalog)
    items = parse_items(read_jsonl(args.items, "--items"), catalog)
    by_id = {item.id: item for item in items}
    fresh = args.generate_with and not args.answers.exists()
    answer_rows = [] if fresh else read_jsonl(args.answers, "--answers")
    answers = parse_answers(answer_rows, set(by_id))
    llm = build_llm(args) if (args.judges or args.generate_with) else None
    if args.generate_with and llm is not None:
        new = _generate_missing(llm, args.generate_with, items, answers, args.workers)
        if new:
            rows = [row for _, row in answer_rows]
            rows += [{"id": a.item_id, "model": a.model, "answer": a.text} for a in new]
            write_jsonl(args.answers, rows)
            answers = [*answers, *new]

    verifier = RuleVerifier(UnitParser(), use_evidence_patterns=not args.no_evidence_patterns)
    auditor = SciIFAuditor(catalog, verifier, llm=llm, judges=args.judges, mode=args.mode)
    audits = auditor.audit_many(by_id, answers, workers=args.workers)
    answered = {(a.item_id, a.model) for a in answers}
    models = {a.model for a in answers}
    missing = sum(1 for m in models for item in items if (item.id, m) not in answered)
    report: dict[str, Any] = build_report(audits, catalog, mode=args.mode, judges=args.judges,
                                          gate_on_correctness=args.gate_on_correctness,
                                          missing_answers=missing)
    report["usage"] = usage_summary(llm) if llm is not None else None
    write_json(args.out, report)
    for model, summary in report["models"].items():
        print(f"{model}: items {summary['items']}, correctness {_rate(summary['correctness'])}, "
              f"compliance {_rate(summary['compliance'])} (single {_rate(summary['single_constraint'])}, "
              f"multi {_rate(summary['multi_constraint'])})", file=sys.stdout)
    return 0


def _generate_missing(llm: LLM, model: str, items: list[SciIFItem], answers: list[ModelAnswer],
                      workers: int) -> list[ModelAnswer]:
    """Answers of `model` to the items it has not answered yet (the cache makes reruns free)."""
    have = {(a.item_id, a.model) for a in answers}
    todo = [item for item in items if (item.id, model) not in have]
    with ThreadPoolExecutor(max_workers=workers) as pool:
        texts = list(pool.map(lambda item: generate_answer(llm, model, item), todo))
    return [ModelAnswer(item_id=item.id, model=model, text=text)
            for item, text in zip(todo, texts, strict=True)]


def _rate(c: dict[str, Any]) -> str:
    if not c["total"]:
        return "n/a"
    text = f"{100 * c['rate']:.1f}%"
    return text + (f" ({c['undecided']} undecided)" if c["undecided"] else "")
