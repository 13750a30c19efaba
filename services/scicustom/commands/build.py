"""`scicustom build`: a custom benchmark for one requirement on the embedded default."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from scicustom.app.build.request import BuildOptions, requirement_argument, validated_request
from scicustom.commands.command_output import emit
from scicustom.commands.progress_bars import ProgressBars
from scicustom.core.build.pipeline import DEFAULT_MIN_ITEMS, METHODS, BuildResult

# A build whose jury accepted fewer relevant, well-formed items than --min-items: the (small) benchmark
# and every other file are written, config.json "coverage" names the thin voted units. Distinct from
# 0 (ok), 1 (a failure) and 2 (bad input, one line on stderr).
EXIT_THIN_COVERAGE = 3

if TYPE_CHECKING:
    from scicustom.bootstrap import Context


def register(sub: argparse._SubParsersAction) -> None:  # type: ignore[type-arg]
    parser = sub.add_parser("build", help="build a custom benchmark for a requirement")
    parser.add_argument("--requirement", required=True,
                        help="a requirement YAML file (the SciCustom release format) or free text")
    parser.add_argument("--out", required=True, type=Path, help="output directory (created atomically)")
    parser.add_argument("--k1", type=int, help="voted units kept (default: the file's, else 10)")
    parser.add_argument("--k2", type=int, help="maximum benchmark size (default: the file's, else 100)")
    parser.add_argument("--proxy-samples", type=int, help="candidate subsets drawn (default 100)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--method", choices=METHODS, default="scicustom")
    parser.add_argument("--relevance-quantile", type=float, default=0.95,
                        help="local relevance judges: background quantile an item must exceed")
    parser.add_argument("--llm-judges", action="store_true",
                        help="use the requirement file's LLM judges and MCQ writer through litellm")
    parser.add_argument("--min-items", type=int,
                        help=f"thin-coverage floor: with fewer relevant MCQs the build still writes its files "
                             f"but exits with {EXIT_THIN_COVERAGE} (default {DEFAULT_MIN_ITEMS})")
    parser.add_argument("--force", action="store_true", help="replace --out if it exists")
    parser.add_argument("--since", type=Path, metavar="PREVIOUS_DIR",
                        help="a previous build's directory: also write diff.json (questions added, removed and "
                             "kept; voted units whose coverage changed)")
    parser.add_argument("--summary-json", type=Path, help="also write the summary with stage timings here")
    parser.set_defaults(handler=run_build)


def run_build(args: argparse.Namespace, ctx: Context) -> int:
    from scicustom.app.build.output_writer import canonical_json

    options = BuildOptions(method=args.method, k1=args.k1, k2=args.k2, proxy_samples=args.proxy_samples,
                           seed=args.seed, llm_judges=args.llm_judges, relevance_quantile=args.relevance_quantile,
                           min_items=args.min_items)
    request = validated_request(requirement_argument(args.requirement), options,
                                quantile_field="--relevance-quantile", llm_field="--llm-judges")
    if ctx.cluster:
        from scicustom.client.build_client import run_remote_build

        return run_remote_build(ctx, request, args.out, args.force, args.since)
    from scicustom.app.build.local import run_local_build

    with ProgressBars() as bars:
        build = run_local_build(request, args.out, args.force, ctx.build_world, bars, args.since)
    emit(args, {"out": str(args.out), "files": list(build.files), "summary": build.summary},
         lambda: f"wrote {args.out}/ ({', '.join(build.files)})\n" + _render(build.summary, build.result))
    if args.summary_json:
        args.summary_json.write_text(canonical_json(build.summary), encoding="utf-8")
    if build.result.thin:
        status = build.result.status
        print(f"scicustom build: {status['message']}; {status['suggestion']} (exit {EXIT_THIN_COVERAGE})",
              file=sys.stderr)
        return EXIT_THIN_COVERAGE
    return 0


def _render(summary: dict[str, Any], result: BuildResult) -> str:
    lines = [
        f"requirement  {summary['requirement']} (method {summary['method']})",
        f"voted units  {', '.join(summary['voted_units']) or '-'}",
        f"candidates   {summary['n_candidates']}   cutoff position {summary['cutoff_position']}   "
        f"jury probes {summary['n_probes']}   within cutoff {summary['n_within_cutoff']}",
        f"benchmark    {summary['n_mcq']} MCQs from a proxy subset of {summary['subset_size']}   "
        f"sources {json.dumps(summary['sources'])}",
        "timings (s)  " + "  ".join(f"{k} {v}" for k, v in summary["timings_s"].items()),
    ]
    validity = summary.get("validity") or {}
    if validity.get("estimated_on_topic") is not None:
        lo, hi = validity["ci95"]
        accepted = ", ".join(f"{k} {v:.0%}" for k, v in validity["judge_acceptance"].items())
        lines.append(f"validity     estimated on topic {validity['estimated_on_topic']:.0%} "
                     f"(95% interval {lo:.0%}-{hi:.0%}, the spread between requirements included); "
                     f"judges accepted {accepted}")
    dropped = {k: v for k, v in (summary.get("quality_gate") or {}).get("dropped", {}).items() if v}
    if dropped:
        lines.append("quality gate dropped " + ", ".join(f"{k} {v}" for k, v in dropped.items()))
    coverage = summary.get("coverage") or {}
    lines.append(f"coverage     {coverage.get('status', '-')}" + (
        f"   thin units: {', '.join(coverage['thin_units'])}" if coverage.get("thin_units") else ""))
    if summary.get("diff"):
        lines.append(f"diff         {summary['diff']}")
    lines += [f"warning      {w}" for w in summary["warnings"][:5]]
    for mcq in result.benchmark[:2]:
        lines.append("example      " + mcq.query.replace("\n", "\n             ") + f"   [answer {mcq.answer}]")
    return "\n".join(lines)
