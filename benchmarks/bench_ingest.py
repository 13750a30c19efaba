"""Ingestion throughput: items/s from items-imported through Kafka -> embed + tag -> items-tagged ->
quality score -> Elasticsearch bulk indexing + corpus shards on S3 -> items-indexed, against the
in-process baseline (the same two steps called directly on a filesystem store and the embedded
index, no Kafka, no S3, no Elasticsearch) measured in the same run with the same warm models.

Starts SeaweedFS, tansu and noida-db on loopback; the tag and index workers run as threads of this
process (one consumer each). Items are an even slice of MMLU, MedMCQA, SciQ and ARC from the
packaged wheels. Reports end-to-end items/s (first publish -> last items-indexed event) and the
per-step rates from the batches' reports: embedding (MiniLM), tagging (zero-shot), quality
(Flesch) and bulk indexing. Hardness (SmolLM2 perplexity) is not an ingestion step: builds score
it for the items that can enter a subset (benchmarks/bench_cold_build.py). Servers are stopped by
PID at the end. Writes benchmarks/results/ingest.json with the machine info.

With SCICUSTOM_EMBEDDER set to another embedder (minilm-q8), writes ingest-<embedder>.json instead;
with another --batch, ingest[-<embedder>]-batch<N>.json. The corpus import (and `make dev-up`) sends
batches of 1,000: `--items 4000 --batch 1000` is its case; fewer, smaller batches pay the per-batch
Kafka and S3 round trips more often.

Run: python benchmarks/bench_ingest.py [--items 400] [--batch 100]   (make bench: --items 800)
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from machine_info import machine_info

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "services"))
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

from scicustom.adapters.corpus_packaged_sources import WheelCorpusSources  # noqa: E402
from scicustom.adapters.embedded_search_index import EmbeddedSearchIndex  # noqa: E402
from scicustom.adapters.filesystem_store import FilesystemObjectStore  # noqa: E402
from scicustom.adapters.parquet_corpus import ParquetCorpusRepository  # noqa: E402
from scicustom.app.ingest.batch_stages import index_batch, tag_batch  # noqa: E402
from scicustom.app.ingest.batch_submission import read_packaged  # noqa: E402
from scicustom.app.ingest.item_batches import BatchKeys, WrittenBatch, write_imported  # noqa: E402
from scicustom.bootstrap import EMBEDDING_DIMS, Context  # noqa: E402
from scicustom.core.corpus_item import CorpusItem  # noqa: E402
from scicustom.devstack.real_servers import start_noida_elasticsearch, start_seaweedfs, start_tansu  # noqa: E402
from scicustom.ingest.worker import ItemsImportedPublisher  # noqa: E402
from scicustom.workers.topics import ITEMS_INDEXED, Topics  # noqa: E402
from tests.support.ingest_harness import (  # noqa: E402
    CACHES,
    IngestWorkers,
    calibrated_zero_shot,
    cluster_context,
    ensure_ingest_topics,
    read_envelopes,
)

RESULTS = ROOT / "benchmarks" / "results" / "ingest.json"
SOURCES = ["mmlu", "medmcqa", "sciq", "arc"]
CALIBRATION_ITEMS = 200  # MMLU items the zero-shot threshold is calibrated on, as `corpus tag` does
WARM_UP = 16
STEPS = ("embedding", "tagging", "quality", "indexing")
DEFAULT_BATCH = 100


def read_items(n: int) -> list[CorpusItem]:
    read = read_packaged(WheelCorpusSources(CACHES["wheel_cache_dir"]), SOURCES, -(-n // len(SOURCES)))
    return [it for source in read for it in source.items][:n]


def chunks(items: list[CorpusItem], size: int) -> list[list[CorpusItem]]:
    return [items[k : k + size] for k in range(0, len(items), size)]


def step_rates(reports: list[dict[str, Any]]) -> dict[str, float]:
    """Items per second of each step over every batch (seconds summed, items summed)."""
    items = sum(int(r["indexed"]) for r in reports)
    return {step: items / max(sum(float(r["seconds"][step]) for r in reports), 1e-9) for step in STEPS}


def in_process(ctx: Context, batches: list[list[CorpusItem]], work: Path) -> tuple[float, dict[str, float]]:
    """The two steps called directly, batch after batch: filesystem store, embedded index, no bus."""
    store = FilesystemObjectStore(work / "baseline-store")
    repo = ParquetCorpusRepository(store)
    index = EmbeddedSearchIndex([u.id for u in ctx.catalog.units], EMBEDDING_DIMS)
    reports = []
    started = time.perf_counter()
    for k, chunk in enumerate(batches):
        batch = write_imported(store, {"source": "bench", "origin": f"baseline-{k}"}, chunk)
        keys = BatchKeys(batch.batch_id)
        tagged = tag_batch(store, batch.batch_id, store.get_bytes(keys.imported), "bench", ctx.embedder, ctx.tagger,
                           ctx.catalog)
        done = index_batch(store, repo, batch.batch_id, store.get_bytes(keys.tagged), tagged.tagger_version,
                           index, "baseline")
        reports.append(done.report)
    seconds = time.perf_counter() - started
    if len(index.item_ids()) != sum(len(c) for c in batches):
        raise RuntimeError("the baseline lost items")
    return seconds, step_rates(reports)


def through_kafka(ctx: Context, batches: list[list[CorpusItem]]) -> tuple[float, dict[str, float]]:
    """Batches published on items-imported; tag and index workers on Kafka, S3 and Elasticsearch."""
    topics = Topics(ctx.settings.topic_prefix)
    ensure_ingest_topics(ctx.event_bus, topics)
    ctx.search_index.item_ids()  # creates the index mapping outside the timed part
    written: list[WrittenBatch] = []
    announce = ItemsImportedPublisher(ctx.store, ctx.event_bus, topics)
    with IngestWorkers(ctx, topics):
        time.sleep(4.0)  # group joins take session_timeout/2 on tansu: not part of the rate
        started = time.perf_counter()
        for k, chunk in enumerate(batches):
            batch = write_imported(ctx.store, {"source": "bench", "origin": f"kafka-{k}"}, chunk)
            announce(batch, "bench")
            written.append(batch)
        events = read_envelopes(ctx.event_bus, topics.of(ITEMS_INDEXED), len(batches), 3600.0)
        seconds = time.perf_counter() - started
    if {e.batch_id for e in events} != {b.batch_id for b in written}:
        raise RuntimeError("not every batch came out indexed")
    reports = [json.loads(ctx.store.get_bytes(BatchKeys(b.batch_id).indexed)) for b in written]
    if sum(int(r["indexed"]) for r in reports) != sum(len(c) for c in batches):
        raise RuntimeError("Kafka path lost items")
    return seconds, step_rates(reports)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=400)
    parser.add_argument("--batch", type=int, default=DEFAULT_BATCH, help="items per batch (at most 1000, as "
                        "the corpus import's batches)")
    args = parser.parse_args()
    items = read_items(args.items)
    batches = chunks(items, args.batch)
    print(f"machine: {os.cpu_count()} cores; {len(items)} items in {len(batches)} batches of <= {args.batch}")
    with tempfile.TemporaryDirectory(prefix="scicustom-bench-ingest-") as tmp:
        work = Path(tmp)
        servers = []
        try:
            s3 = start_seaweedfs(work)
            servers.append(s3.process)
            kafka = start_tansu(work)
            servers.append(kafka.process)
            es = start_noida_elasticsearch(work)
            servers.append(es.process)
            ctx = cluster_context(s3, kafka, es, work / "home", f"bench-{uuid.uuid4().hex[:8]}")
            embedder = ctx.settings.embedder
            calibration = read_packaged(ctx.packaged_corpus, ["mmlu"], CALIBRATION_ITEMS)[0].items
            ctx.tagger = calibrated_zero_shot(ctx.embedder, ctx.catalog, calibration)  # type: ignore[misc]
            # Model loads and first-call costs are part of neither rate.
            ctx.embedder.encode([it.text for it in calibration[:WARM_UP]])
            # Both paths use this context's warm models; the baseline touches none of its servers.
            base_s, base_steps = in_process(ctx, batches, work)
            kafka_s, kafka_steps = through_kafka(ctx, batches)
            ctx.event_bus.close()
        finally:
            for process in reversed(servers):
                process.stop()
    n = len(items)
    print(f"in-process baseline (no Kafka/S3/ES): {n / base_s:8.2f} items/s ({base_s:.1f} s)")
    print(f"Kafka -> tagger -> Elasticsearch:      {n / kafka_s:8.2f} items/s ({kafka_s:.1f} s); "
          f"ratio to baseline {base_s / kafka_s:.3f}")
    print(f"{'per-step items/s':<22}" + "".join(f"{s:>12}" for s in STEPS))
    for label, steps in (("in-process", base_steps), ("kafka workers", kafka_steps)):
        print(f"{label:<22}" + "".join(f"{steps[s]:>12.1f}" for s in STEPS))
    # Another embedder (SCICUSTOM_EMBEDDER) or batch size is another figure, beside the default's.
    suffix = ("" if embedder == "minilm" else f"-{embedder}") + (
        "" if args.batch == DEFAULT_BATCH else f"-batch{args.batch}")
    out = RESULTS.with_name(f"ingest{suffix}.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps({
        "benchmark": "ingest", "date": datetime.now(UTC).isoformat(timespec="seconds"),
        "machine": machine_info(), "embedder": embedder,
        "items": n, "batch": args.batch,
        "in_process": {"seconds": round(base_s, 3), "items_per_s": round(n / base_s, 2), "steps": base_steps},
        "kafka_s3_es": {"seconds": round(kafka_s, 3), "items_per_s": round(n / kafka_s, 2), "steps": kafka_steps},
        "ratio_bus_to_in_process": round(base_s / kafka_s, 3),
    }, indent=1) + "\n", encoding="utf-8")
    print(f"written to {out.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
