"""`scicustom build`: a custom benchmark for one requirement on the embedded default."""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import yaml
from tqdm import tqdm

from scicustom.core.build.pipeline import METHODS, BuildParams, BuildResult
from scicustom.core.errors import InvalidInput
from scicustom.core.requirement import Requirement, requirement_from_mapping, requirement_from_text

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
    parser.add_argument("--force", action="store_true", help="replace --out if it exists")
    parser.add_argument("--summary-json", type=Path, help="also write the summary with stage timings here")
    parser.set_defaults(handler=run_build)


def load_requirement(value: str) -> Requirement:
    path = Path(value)
    if path.suffix in (".yaml", ".yml", ".json") or path.exists():
        if not path.is_file():
            raise InvalidInput("--requirement", f"{value} is not a file")
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
        except yaml.YAMLError as exc:
            raise InvalidInput("--requirement", f"{value} is not valid YAML ({type(exc).__name__})") from None
        return requirement_from_mapping(data)
    return requirement_from_text(value)


class _StageBars:
    """One tqdm bar per stage on stderr (only on a terminal)."""

    def __init__(self) -> None:
        self._bars: dict[str, tqdm] = {}  # type: ignore[type-arg]
        self._enabled = sys.stderr.isatty()

    def __call__(self, stage: str, done: int, total: int) -> None:
        if not self._enabled:
            return
        bar = self._bars.get(stage)
        if bar is None:
            bar = self._bars[stage] = tqdm(total=total, desc=f"{stage:<7}", unit=" step", leave=False)
        bar.total = max(total, 1)
        bar.n = done
        bar.refresh()

    def close(self) -> None:
        for bar in self._bars.values():
            bar.close()


def run_build(args: argparse.Namespace, ctx: Context) -> int:
    from scicustom.builds.build_world import JuryOptions, assemble_world
    from scicustom.builds.output_files import render_files
    from scicustom.builds.output_writer import canonical_json, check_output_dir, write_atomically
    from scicustom.core.build.pipeline import BuildPipeline

    requirement = load_requirement(args.requirement)
    def given(flag: int | None, default: int) -> int:
        return default if flag is None else flag

    params = BuildParams(method=args.method, k1=given(args.k1, requirement.k1), k2=given(args.k2, requirement.k2),
                         proxy_samples=given(args.proxy_samples, requirement.proxy_samples), seed=args.seed)
    params.validate()
    if not 0.5 <= args.relevance_quantile < 1:
        raise InvalidInput("--relevance-quantile", "must be in [0.5, 1)")
    check_output_dir(args.out, args.force)
    started = time.perf_counter()
    if ctx.cluster:
        from scicustom.builds.remote_build import run_remote_build

        return run_remote_build(ctx, args, params)
    bars = _StageBars()
    jury = JuryOptions(llm_judges=args.llm_judges, relevance_quantile=args.relevance_quantile)
    world, versions = assemble_world(ctx, requirement, params.seed, jury, bars)
    world.clock = time.perf_counter
    try:
        result = BuildPipeline(world).run(requirement, params)
    finally:
        bars.close()
    files = render_files(requirement, params, jury, versions, result,
                         world.mcq_writer.name if world.mcq_writer else None)
    write_atomically(args.out, files, args.force)
    total = time.perf_counter() - started
    summary = _summary(requirement, params, result, total)
    print(f"wrote {args.out}/ ({', '.join(files)})")
    print(_render(summary, result))
    if args.summary_json:
        args.summary_json.write_text(canonical_json(summary), encoding="utf-8")
    return 0


def _summary(requirement: Requirement, params: BuildParams, result: BuildResult, total: float) -> dict[str, Any]:
    return {
        "requirement": requirement.name,
        "method": params.method,
        "voted_units": [u["name"] for u in result.voting.get("units", [])],
        "n_candidates": result.cutoff["n_candidates"],
        "cutoff_position": result.cutoff["cutoff_position"],
        "n_probes": result.cutoff["n_probes"],
        "n_within_cutoff": result.cutoff["n_selected"],
        "subset_size": len(result.proxy),
        "n_mcq": len(result.benchmark),
        "sources": _count(m.provenance["source"] for m in result.benchmark),
        "timings_s": {**result.timings, "total": round(total, 3)},
        "warnings": result.warnings,
    }


def _count(values: Any) -> dict[str, int]:
    counts: dict[str, int] = {}
    for v in values:
        counts[v] = counts.get(v, 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: -kv[1]))


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
    lines += [f"warning      {w}" for w in summary["warnings"][:5]]
    for mcq in result.benchmark[:2]:
        lines.append("example      " + mcq.query.replace("\n", "\n             ") + f"   [answer {mcq.answer}]")
    return "\n".join(lines)
