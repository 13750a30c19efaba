"""The embedded build: one process assembles the world, runs the whole pipeline and writes the files
atomically (`scicustom build` on the local profile)."""

from __future__ import annotations

import json
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scicustom.app.build.output_files import render_files
from scicustom.app.build.output_writer import check_output_dir, write_atomically
from scicustom.app.build.request import BuildRequest
from scicustom.app.build.since import previous_build_dir, with_diff
from scicustom.app.build.world import AssembleWorld
from scicustom.core.build.build_diff import diff_summary
from scicustom.core.build.pipeline import BuildParams, BuildPipeline, BuildResult
from scicustom.core.progress import Progress
from scicustom.core.requirement import Requirement


@dataclass(frozen=True)
class LocalBuild:
    files: dict[str, str]         # file name -> text, as written
    result: BuildResult
    summary: dict[str, Any]       # what the CLI prints (and writes with --summary-json)


def run_local_build(request: BuildRequest, out: Path, force: bool, assemble: AssembleWorld,
                    progress: Progress, since: Path | None = None) -> LocalBuild:
    """`since`: a previous build's directory; the new build then also writes `diff.json`."""
    check_output_dir(out, force)  # before the build, so a refused --out or --since costs nothing
    previous = previous_build_dir(since) if since is not None else None
    started = time.perf_counter()
    world, versions = assemble(request.requirement, request.params.seed, request.jury, progress)
    world.clock = time.perf_counter
    result = BuildPipeline(world).run(request.requirement, request.params)
    files = with_diff(render_files(request.requirement, request.params, request.jury, versions, result,
                                   world.mcq_writer.name if world.mcq_writer else None), previous, str(since))
    write_atomically(out, files)
    summary = build_summary(request.requirement, request.params, result, time.perf_counter() - started)
    if "diff.json" in files:
        summary["diff"] = diff_summary(json.loads(files["diff.json"]))
    return LocalBuild(files, result, summary)


def build_summary(requirement: Requirement, params: BuildParams, result: BuildResult,
                  total: float) -> dict[str, Any]:
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
        "coverage": result.status,
        "validity": result.validity,
        "quality_gate": result.quality,
    }


def _count(values: Iterable[str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for v in values:
        counts[v] = counts.get(v, 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: -kv[1]))
