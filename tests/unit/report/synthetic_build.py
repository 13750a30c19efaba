"""The files of a real build on the synthetic world (every stage runs), for the report tests; and
a hand-made evaluation with two models and a reference ranking."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from scicustom.app.build.output_files import render_files
from scicustom.app.build.output_writer import canonical_json, canonical_jsonl
from scicustom.app.build.request import BuildOptions, RequirementSource, validated_request
from scicustom.app.report.evaluation_report import EvaluationReport
from scicustom.core.build.pipeline import BuildPipeline
from tests.support.synthetic_world import synthetic_world

HOSTILE = "<script>window.__pwned = 1</script>"
HOSTILE_OPTION = '<img src="x" onerror="window.__pwned = 2">'
REQUEST = validated_request(
    RequirementSource(text="virology: virus capsid, viral genome and virus replication in the host cell"),
    BuildOptions(k1=2, k2=20, proxy_samples=10, seed=1, relevance_quantile=0.75))


@cache
def _built() -> tuple[tuple[str, str], ...]:
    result = BuildPipeline(synthetic_world()).run(REQUEST.requirement, REQUEST.params)
    files = render_files(REQUEST.requirement, REQUEST.params, REQUEST.jury, {"corpus": "synthetic"}, result, None)
    return tuple(files.items())


def build_files() -> dict[str, str]:
    """Every file of the build, report.html included."""
    return dict(_built())


def without_report(files: dict[str, str]) -> dict[str, str]:
    return {name: text for name, text in files.items() if name != "report.html"}


def hostile_build_files() -> dict[str, str]:
    """The build with a question, an option and a unit name that are markup."""
    files = without_report(build_files())
    rows = [json.loads(line) for line in files["benchmark.jsonl"].splitlines()]
    rows[0]["query"] = f"{HOSTILE} What does a capsid protect?\nA. {HOSTILE_OPTION}\nB. the genome"
    rows[0].pop("choices", None)
    rows[0].pop("answer_index", None)
    rows[0]["answer"] = "B"
    coverage = json.loads(files["coverage.json"])
    coverage["units"][0]["name"] = HOSTILE
    return {**files, "benchmark.jsonl": canonical_jsonl(rows), "coverage.json": canonical_json(coverage)}


def empty_build_files() -> dict[str, str]:
    """A thin build: the jury accepted nothing, so no subset and no questions (exit 3)."""
    files = without_report(build_files())
    config = json.loads(files["config.json"])
    config["coverage"] = {"status": "thin", "n_mcq": 0, "min_items": 10, "thin_units": ["Virology"],
                          "message": "thin coverage: only 0 relevant MCQs (< the floor of 10)",
                          "suggestion": "ingest papers on these topics"}
    config["validity"] = {"n_items": 0, "estimated_on_topic": None, "ci95": None, "judge_acceptance": {}}
    coverage = json.loads(files["coverage.json"])
    for unit in coverage["units"]:
        unit.update(relevant=0, in_benchmark=0, thin=True)
    cutoff = json.loads(files["cutoff.json"])
    cutoff.pop("cut_set_scores", None)
    cutoff.update(accepted_votes={}, n_selected=0)
    return {**files, "benchmark.jsonl": "", "proxy.jsonl": "", "config.json": canonical_json(config),
            "coverage.json": canonical_json(coverage), "cutoff.json": canonical_json(cutoff)}


def _model(accuracy: float, low: float, high: float, correct: int) -> dict[str, Any]:
    return {"kind": "litellm", "model": "openai/x", "accuracy": accuracy, "ci95": {"low": low, "high": high},
            "n": 4, "n_correct": correct, "n_unparsed": 0, "n_errors": 0,
            "tokens": {"prompt": 40, "completion": 20, "total": 60}, "cost_usd": 0.0}


def evaluation(reference: dict[str, float] | None = None, hostile: bool = False) -> EvaluationReport:
    """Two models on four questions over two units; q4 carries no unit."""
    second = HOSTILE if hostile else "judge-b"
    results = {
        "benchmark": {"path": "bench.jsonl", "sha256": "ab" * 32, "n_items": 4},
        "bootstrap": {"method": "percentile", "resamples": 200, "seed": 3, "confidence": 0.95},
        "models": {"judge-a": _model(0.75, 0.25, 1.0, 3), second: _model(0.5, 0.0, 1.0, 2)},
        "totals": {"tokens": 120, "cost_usd": 0.0},
    }
    outcomes = {"judge-a": {"q1": True, "q2": True, "q3": True, "q4": False},
                second: {"q1": True, "q2": False, "q4": True}}  # q3 failed: counts as wrong
    units = {"q1": ("Virology", "Immune system"), "q2": ("Virology",), "q3": ("Immune system",),
             "q4": ("(no unit)",)}
    return EvaluationReport(results, outcomes, units, reference, "reference.json" if reference else "")
