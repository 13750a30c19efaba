"""Cold builds: `scicustom build` of a requirement whose items were never scored, before vs after.

Each build runs in a child process of its own (so its peak RSS is its own) on the corpus under
$SCICUSTOM_HOME, with an empty hardness cache in a temporary folder, so every item that can enter
the proxy subset is scored during the build:
  before  hardness by the torch adapter (SmolLMPerplexity: transformers, fp32, batches of 16)
  after   hardness by the ONNX Runtime adapter bootstrap wires (fp32 graph, length buckets)
Per requirement it prints wall seconds of each build (model loads included), the `scores` stage,
the ratio, peak RSS, and compares the two: per-item perplexity of the cut set (max abs and
relative difference before rounding to the build files' 6 decimals) and whether the proxy subset
(ids, in order) is the same. Both builds use the same seed, corpus, tagger and jury.
Then the two adapters alone on the same --items random corpus items (seeded; model loads not
timed): items/s of each, the ratio, and the max abs and relative difference of perplexity.
Writes benchmarks/results/cold_build.json with the machine info.

Run: python benchmarks/bench_cold_build.py [--requirement healthcare_virology ...] [--only after]
     [--items 200]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from machine_info import machine_info

ROOT = Path(__file__).resolve().parent.parent
RESULTS = ROOT / "benchmarks" / "results" / "cold_build.json"
DEFAULT_REQUIREMENTS = ["healthcare_virology", "chemistry_organic"]
RUNTIMES = ("before", "after")


def child(runtime: str, requirement: str, cache: Path, out: Path, result: Path) -> None:
    """One cold build in this process; writes its timings, proxy ids and cut-set hardness to `result`."""
    sys.path.insert(0, str(ROOT / "services"))
    from scicustom.adapters.filesystem_store import FilesystemObjectStore
    from scicustom.adapters.parquet_corpus import ParquetCorpusRepository
    from scicustom.app.build.local import run_local_build
    from scicustom.app.build.request import BuildOptions, requirement_argument, validated_request
    from scicustom.bootstrap import Context
    from scicustom.config import RESOURCES
    from scicustom.core.progress import no_progress

    started = time.perf_counter()
    ctx = Context.from_environment()
    fresh = ParquetCorpusRepository(FilesystemObjectStore(cache))

    class FreshHardnessCorpus(ParquetCorpusRepository):
        """The home's corpus, with the hardness cache in an empty folder (a cold build)."""

        def load_hardness(self, model: str) -> dict[tuple[str, str], float]:
            return fresh.load_hardness(model)

        def add_hardness(self, model: str, scores: dict[tuple[str, str], float]) -> str:
            return fresh.add_hardness(model, scores)

    ctx.corpus = FreshHardnessCorpus(ctx.store)  # type: ignore[misc]
    if runtime == "before":
        from scicustom.adapters.smollm_perplexity import SmolLMPerplexity

        ctx.perplexity = SmolLMPerplexity(ctx.settings.model_cache,  # type: ignore[misc]
                                          batch_size=ctx.settings.perplexity_batch,
                                          max_question_tokens=ctx.settings.perplexity_max_question_tokens)
    raw: dict[str, float] = {}
    model = ctx.perplexity

    class Recording:
        """The adapter, keeping the unrounded values it returns (what the comparison measures)."""

        name = model.name

        def perplexities(self, pairs: Any) -> Any:
            values = model.perplexities(pairs)
            raw.update({f"{q}\x1f{a}": float(v) for (q, a), v in zip(pairs, values, strict=True)})
            return values

    ctx.perplexity = Recording()  # type: ignore[misc,assignment]
    request = validated_request(requirement_argument(str(RESOURCES / "requirements" / f"{requirement}.yaml")),
                                BuildOptions(), quantile_field="--relevance-quantile", llm_field="--llm-judges")
    build = run_local_build(request, out, True, ctx.build_world, no_progress)
    wall = time.perf_counter() - started
    cutoff = json.loads(build.files["cutoff.json"])
    items = {it.id: it for it in ctx.corpus.load_items()}
    cut = [row["id"] for row in cutoff.get("cut_set_scores", [])]
    result.write_text(json.dumps({
        "wall_s": wall, "timings_s": build.summary["timings_s"], "n_scored": len(raw),
        "proxy_ids": [row["id"] for row in build.result.proxy],
        "hardness": {i: raw.get(f"{items[i].question}\x1f{items[i].answer}") for i in cut},
        "hardness_model": json.loads(build.files["config.json"])["corpus"]["hardness_model"],
    }))


def run_child(runtime: str, requirement: str, work: Path) -> dict[str, Any]:
    result = work / f"{requirement}-{runtime}.json"
    cache = work / f"{requirement}-{runtime}-cache"
    cmd = [sys.executable, __file__, "--child", runtime, "--requirement", requirement, "--cache", str(cache),
           "--out", str(work / f"{requirement}-{runtime}-out"), "--result", str(result)]
    process = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise RuntimeError(f"the {runtime} build of {requirement} failed ({status})")
    data: dict[str, Any] = json.loads(result.read_text())
    data["peak_rss_mib"] = round(usage.ru_maxrss / 1024, 1)  # ru_maxrss is in KiB on Linux
    return data


def compare(before: dict[str, Any], after: dict[str, Any]) -> dict[str, Any]:
    pairs = [(before["hardness"][i], after["hardness"][i]) for i in before["hardness"]
             if before["hardness"].get(i) is not None and after["hardness"].get(i) is not None]
    abs_diff = [abs(a - b) for b, a in pairs]
    rel_diff = [abs(a - b) / b for b, a in pairs]
    return {"items_compared": len(pairs), "max_abs_diff": max(abs_diff, default=0.0),
            "max_rel_diff": max(rel_diff, default=0.0),
            "mean_rel_diff": sum(rel_diff) / len(rel_diff) if rel_diff else 0.0,
            "same_proxy_subset": before["proxy_ids"] == after["proxy_ids"],
            "proxy_ids_changed": len(set(before["proxy_ids"]) ^ set(after["proxy_ids"])) // 2}


def perplexity_stage(n: int) -> dict[str, Any]:
    """Old (torch) vs new (ONNX Runtime) adapter on the same n random corpus items, in this process."""
    sys.path.insert(0, str(ROOT / "services"))
    import numpy as np

    from scicustom.adapters.onnx_perplexity import OnnxSmolLMPerplexity
    from scicustom.adapters.smollm_perplexity import SmolLMPerplexity
    from scicustom.bootstrap import Context

    ctx = Context.from_environment()
    items = ctx.corpus.load_items()
    rng = np.random.default_rng(0)
    pairs = [(items[i].question, items[i].answer) for i in sorted(rng.choice(len(items), n, replace=False))]
    s = ctx.settings
    models = {"before": SmolLMPerplexity(s.model_cache, s.perplexity_batch, s.perplexity_max_question_tokens),
              "after": OnnxSmolLMPerplexity(s.model_cache, s.perplexity_batch, s.perplexity_max_question_tokens)}
    values, rates = {}, {}
    for side, model in models.items():
        model.perplexities(pairs[:2])  # loads the model outside the timing
        started = time.perf_counter()
        values[side] = model.perplexities(pairs)
        rates[side] = n / (time.perf_counter() - started)
    before, after = values["before"], values["after"]
    rel = np.abs(after - before) / before
    return {"items": n, "before_items_per_s": round(rates["before"], 3), "after_items_per_s": round(rates["after"], 3),
            "ratio": round(rates["after"] / rates["before"], 3), "max_abs_diff": float(np.max(np.abs(after - before))),
            "max_rel_diff": float(np.max(rel)), "mean_rel_diff": float(np.mean(rel)),
            "max_rel_diff_rounded_6dp": float(np.max(np.abs(np.round(after, 6) - np.round(before, 6)) / before))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requirement", action="append", help="a packaged requirement's file stem (repeatable)")
    parser.add_argument("--only", choices=RUNTIMES, help="run one side only (no ratio)")
    parser.add_argument("--items", type=int, default=200, help="corpus items for the adapters alone (0: skip)")
    parser.add_argument("--child", choices=RUNTIMES, help=argparse.SUPPRESS)
    parser.add_argument("--cache", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--result", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.child, args.requirement[0], args.cache, args.out, args.result)
        return
    requirements = args.requirement or DEFAULT_REQUIREMENTS
    runtimes = [args.only] if args.only else list(RUNTIMES)
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}; cold builds "
          f"(empty hardness cache), {', '.join(runtimes)}")
    runs: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="scicustom-bench-cold-") as tmp:
        for requirement in requirements:
            sides = {runtime: run_child(runtime, requirement, Path(tmp)) for runtime in runtimes}
            entry: dict[str, Any] = {side: {k: v for k, v in data.items() if k not in ("hardness", "proxy_ids")}
                                     for side, data in sides.items()}
            for side, data in sides.items():
                scores = data["timings_s"].get("scores", 0.0)
                print(f"{requirement:<28} {side:<6} wall {data['wall_s']:6.1f} s  scores stage {scores:6.1f} s "
                      f"({data['n_scored']} items, {data['n_scored'] / max(scores, 1e-9):.1f} items/s)  "
                      f"peak RSS {data['peak_rss_mib']:.0f} MiB  [{data['hardness_model']}]")
            if len(sides) == 2:
                before, after = sides["before"], sides["after"]
                diff = compare(before, after)
                entry["comparison"] = diff
                entry["wall_ratio"] = round(before["wall_s"] / after["wall_s"], 3)
                scores_before, scores_after = before["timings_s"]["scores"], after["timings_s"]["scores"]
                entry["scores_ratio"] = round(scores_before / max(scores_after, 1e-9), 3)
                subset = "unchanged" if diff["same_proxy_subset"] else f"changed ({diff['proxy_ids_changed']} ids)"
                print(f"{requirement:<28} after vs before: wall x{entry['wall_ratio']:.2f}, scores stage "
                      f"x{entry['scores_ratio']:.2f}; perplexity on {diff['items_compared']} cut-set items: max "
                      f"abs diff {diff['max_abs_diff']:.3g}, max rel diff {diff['max_rel_diff']:.2e}; proxy subset "
                      f"{subset}")
            runs[requirement] = entry
    stage = perplexity_stage(args.items) if args.items and not args.only else None
    if stage:
        print(f"perplexity alone on {stage['items']} corpus items: torch {stage['before_items_per_s']:.2f} items/s, "
              f"ONNX Runtime {stage['after_items_per_s']:.2f} items/s: x{stage['ratio']:.2f}; max abs diff "
              f"{stage['max_abs_diff']:.3g}, max rel diff {stage['max_rel_diff']:.2e} "
              f"(mean {stage['mean_rel_diff']:.1e})")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps({"benchmark": "cold_build", "date": datetime.now(UTC).isoformat(timespec="seconds"),
                                   "machine": machine_info(), "builds": runs, "perplexity_stage": stage},
                                  indent=1) + "\n",
                       encoding="utf-8")
    print(f"written to {RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
