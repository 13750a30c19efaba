"""The files of a finished build, rendered the same way by the embedded CLI and the complete stage."""

from __future__ import annotations

from typing import Any

from scicustom import __version__
from scicustom.app.build.output_writer import canonical_json, canonical_jsonl
from scicustom.app.build.request import JuryOptions
from scicustom.app.report.build_report import REPORT_FILE, build_report_html
from scicustom.core.build.pipeline import BuildParams, BuildResult
from scicustom.core.requirement import Requirement

OFFLINE_WRITER = "offline:nearest-items (original options kept for MCQ items)"


def build_config(requirement: Requirement, params: BuildParams, jury: JuryOptions, versions: dict[str, Any],
                 result: BuildResult, writer_name: str | None) -> dict[str, Any]:
    return {
        "scicustom_version": __version__,
        "requirement": {"name": requirement.name, "domain": requirement.domain,
                        "description": requirement.description},
        "params": {"method": params.method, "k1": params.k1, "k2": params.k2,
                   "proxy_samples": params.proxy_samples, "seed": params.seed,
                   "relevance_quantile": jury.relevance_quantile, "min_items": params.min_items},
        "corpus": versions,
        "judges": {
            "mode": "llm" if jury.llm_judges else "offline",
            "voting": result.judges["voting"],
            "relevance": result.judges["relevance"],
            "mcq_writer": writer_name or OFFLINE_WRITER,
            "acceptance": result.validity.get("judge_acceptance", {}),
            "agreement": result.cutoff.get("agreement", {}),
        },
        "coverage": result.status,
        "validity": result.validity,
        "quality_gate": result.quality,
        "warnings": result.warnings,
    }


def render_files(requirement: Requirement, params: BuildParams, jury: JuryOptions, versions: dict[str, Any],
                 result: BuildResult, writer_name: str | None) -> dict[str, str]:
    """File name -> text, in the order the files are listed to users."""
    config = build_config(requirement, params, jury, versions, result, writer_name)
    files = {
        "voting.json": canonical_json(result.voting),
        "candidates.jsonl": canonical_jsonl(result.candidates),
        "cutoff.json": canonical_json(result.cutoff),
        "proxy.jsonl": canonical_jsonl(result.proxy),
        "benchmark.jsonl": canonical_jsonl(m.to_record() for m in result.benchmark),
        "coverage.json": canonical_json(result.coverage),
        "config.json": canonical_json(config),
    }
    # Rendered from the file texts, as `scicustom report DIR` renders it: the same bytes either way.
    files[REPORT_FILE] = build_report_html(files)
    return files
