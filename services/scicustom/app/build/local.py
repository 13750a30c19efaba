"""The embedded build: one process assembles the world, runs the whole pipeline and writes the files
atomically (`scicustom build` on the local profile)."""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from scicustom.app.build.output_files import render_files
from scicustom.app.build.output_writer import check_output_dir, write_atomically
from scicustom.app.build.request import BuildRequest
from scicustom.app.build.world import AssembleWorld, Progress
from scicustom.core.build.pipeline import BuildParams, BuildPipeline, BuildResult
from scicustom.core.requirement import Requirement


@dataclass(frozen=True)
class LocalBuild:
    files: dict[str, str]         # file name -> text, as written
    result: BuildResult
    summary: dict[str, Any]       # what the CLI prints (and writes with --summary-json)


def run_local_build(request: BuildRequest, out: Path, force: bool, assemble: AssembleWorld,
                    progress: Progress) -> LocalBuild:
    check_output_dir(out, force)  # before the build, so a refused --out costs nothing
    started = time.perf_counter()
    world, versions = assemble(request.requirement, request.params.seed, request.jury, progress)
    world.clock = time.perf_counter
    result = BuildPipeline(world).run(request.requirement, request.params)
    files = render_files(request.requirement, request.params, request.jury, versions, result,
                         world.mcq_writer.name if world.mcq_writer else None)
    write_atomically(out, files)
    summary = build_summary(request.requirement, request.params, result, time.perf_counter() - started)
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
    }


def _count(values: Iterable[str]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for v in values:
        counts[v] = counts.get(v, 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: -kv[1]))
