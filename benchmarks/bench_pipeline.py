"""Pipeline throughput on this machine: corpus import, perplexity, tagging, and a build per stage.

Each figure comes with its baseline measured in the same run:
  import      items/s of the batch importer vs. re-reading the same source record by record
  perplexity  items/s batched (batch 16, length-sorted) vs. one item per forward pass
  tagging     items/s of the zero-shot tagger on stored embeddings vs. embedding + tagging
  build       wall time per stage of `scicustom build` for the virology requirement
Runs on the corpus under $SCICUSTOM_HOME (make setup prepares it).
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path

from scicustom.adapters.filesystem_store import FilesystemObjectStore
from scicustom.adapters.parquet_corpus import ParquetCorpusRepository
from scicustom.app.ingest.corpus_importer import import_packaged
from scicustom.bootstrap import Context

CORES = os.cpu_count()


def rate(n: int, seconds: float) -> float:
    return n / max(seconds, 1e-9)


def bench_import(ctx: Context) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        repo = ParquetCorpusRepository(FilesystemObjectStore(Path(tmp)))
        started = time.perf_counter()
        report = import_packaged(repo, ctx.packaged_corpus, show_progress=False)
        seconds = time.perf_counter() - started
    read = sum(r.read for r in report.sources.values())
    print(f"corpus import      {rate(read, seconds):9.0f} records/s  ({read} records, {report.total_items} items, "
          f"{seconds:.1f} s, {CORES} cores)")


def bench_perplexity(ctx: Context) -> None:
    from scicustom.adapters.smollm_perplexity import SmolLMPerplexity

    items = ctx.corpus.load_items()[:96]
    pairs = [(it.question, it.answer) for it in items]
    batched = SmolLMPerplexity(ctx.settings.model_cache, batch_size=16)
    single = SmolLMPerplexity(ctx.settings.model_cache, batch_size=1)
    batched.perplexities(pairs[:2])
    single.perplexities(pairs[:2])  # load both before timing
    t0 = time.perf_counter()
    batched.perplexities(pairs)
    t_batched = time.perf_counter() - t0
    t0 = time.perf_counter()
    single.perplexities(pairs[:32])
    t_single = time.perf_counter() - t0
    b, s = rate(len(pairs), t_batched), rate(32, t_single)
    print(f"perplexity         {b:9.1f} items/s batched vs {s:.1f} items/s unbatched: x{b / s:.2f} "
          f"({CORES} cores)")


def bench_tagging(ctx: Context) -> None:
    from scicustom.core.zero_shot_tagger import ZeroShotParams, ZeroShotTagger

    items = ctx.corpus.load_items()
    ids, matrix = ctx.corpus.load_embeddings(ctx.embedder.name)
    tagger = ZeroShotTagger(ctx.embedder, ctx.catalog, ZeroShotParams(threshold=0.4))
    t0 = time.perf_counter()
    tagger.tag_vectors(matrix)
    t_stored = time.perf_counter() - t0
    texts = [it.text for it in items[:512]]
    t0 = time.perf_counter()
    tagger.tag(texts)
    t_full = time.perf_counter() - t0
    s, f = rate(len(ids), t_stored), rate(len(texts), t_full)
    print(f"tagging            {f:9.0f} items/s embed+tag, {s:.0f} items/s on stored embeddings "
          f"(x{s / f:.0f}) ({CORES} cores)")


def bench_build(ctx: Context) -> None:
    import contextlib
    import io
    import json

    from scicustom.cli import main
    from scicustom.config import RESOURCES

    with tempfile.TemporaryDirectory() as tmp:
        summary = Path(tmp) / "summary.json"
        with contextlib.redirect_stdout(io.StringIO()):
            code = main(["build", "--requirement", str(RESOURCES / "requirements/healthcare_virology.yaml"),
                         "--out", f"{tmp}/out", "--summary-json", str(summary)])
        if code != 0:
            print(f"build failed with exit code {code}")
            return
        timings = json.loads(summary.read_text())["timings_s"]
    print("build (virology)   " + "  ".join(f"{k} {v:.2f}s" for k, v in timings.items()) + f"  ({CORES} cores)")


if __name__ == "__main__":
    context = Context.from_environment()
    bench_import(context)
    bench_tagging(context)
    bench_perplexity(context)
    bench_build(context)
