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
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scicustom.app.field_names import fields_renamed
from scicustom.app.scoring.sciif import DEFAULT_CATALOG, AuditRequest, audit_answers, load_catalog
from scicustom.commands.command_output import emit
from scicustom.commands.llm_access import add_llm_arguments, llm_from_arguments
from scicustom.core.atomic_files import write_jsonl_atomic, write_text_atomic
from scicustom.core.jsonl import read_jsonl
from scicustom.core.sciif.items import ModelAnswer, parse_answers, parse_items

if TYPE_CHECKING:
    from scicustom.bootstrap import Context


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


def run(args: argparse.Namespace, ctx: Context) -> int:
    catalog = load_catalog(args.catalog)
    items = parse_items(read_jsonl(args.items, "--items"), catalog)
    item_ids = {item.id for item in items}
    fresh = args.generate_with and not args.answers.exists()
    answer_rows = [] if fresh else read_jsonl(args.answers, "--answers")
    request = AuditRequest(items=items, answers=parse_answers(answer_rows, item_ids), judges=args.judges,
                           mode=args.mode, gate_on_correctness=args.gate_on_correctness,
                           generate_with=args.generate_with or "", evidence_patterns=not args.no_evidence_patterns,
                           workers=args.workers)

    def save_generated(generated: Sequence[ModelAnswer]) -> None:
        """ANSWERS.jsonl gains the generated answers before the audit starts."""
        if generated:
            rows = [row for _, row in answer_rows]
            rows += [{"id": a.item_id, "model": a.model, "answer": a.text} for a in generated]
            write_jsonl_atomic(args.answers, rows)

    flags = {"options.workers": "--workers", "options.generate_with": "--generate-with",
             "options.judges": "--judges", **{f"options.judges[{k}]": "--judges" for k in range(len(args.judges))},
             "answers": "--answers"}
    with fields_renamed(flags):
        result = audit_answers(request, catalog, lambda: llm_from_arguments(args, ctx), save_generated)
    write_text_atomic(args.out, result.report_json())
    emit(args, {"out": str(args.out), "models": result.report["models"]}, lambda: "\n".join(
        f"{model}: items {s['items']}, correctness {_rate(s['correctness'])}, compliance {_rate(s['compliance'])} "
        f"(single {_rate(s['single_constraint'])}, multi {_rate(s['multi_constraint'])})"
        for model, s in result.report["models"].items()))
    return 0


def _rate(c: dict[str, Any]) -> str:
    if not c["total"]:
        return "n/a"
    text = f"{100 * c['rate']:.1f}%"
    return text + (f" ({c['undecided']} undecided)" if c["undecided"] else "")
