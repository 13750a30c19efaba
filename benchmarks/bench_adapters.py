"""Cluster adapters against their embedded baselines, measured in the same run on this machine.

Starts SeaweedFS, tansu and noida-db on loopback (as the integration tests do), then times:
bulk indexing of MiniLM-sized items into Elasticsearch vs building the embedded index; the
paper's candidate order and exact kNN on both; publish and group-consume rates through Kafka vs
the in-process bus; S3 put/get vs the filesystem store. Servers are stopped by PID at the end.

Run: python benchmarks/bench_adapters.py [items]
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "services"))

import numpy as np  # noqa: E402
from elasticsearch import Elasticsearch  # noqa: E402

from scicustom.adapters.elasticsearch_index import ElasticsearchSearchIndex  # noqa: E402
from scicustom.adapters.embedded_search_index import EmbeddedSearchIndex  # noqa: E402
from scicustom.adapters.filesystem_store import FilesystemObjectStore  # noqa: E402
from scicustom.adapters.kafka_bus import KafkaEventBus  # noqa: E402
from scicustom.adapters.memory_bus import InMemoryEventBus  # noqa: E402
from scicustom.adapters.minio_store import MinioObjectStore  # noqa: E402
from scicustom.core.build.vote import aggregate_votes  # noqa: E402
from scicustom.devstack.real_servers import (  # noqa: E402
    start_noida_elasticsearch,
    start_seaweedfs,
    start_tansu,
)
from scicustom.ports import EventBus, IndexedItem, ObjectStore  # noqa: E402

DIMS = 384
UNITS = [f"ku_{i:03d}" for i in range(642)]
MESSAGES = 5000
OBJECTS = 300


def timed(action):  # type: ignore[no-untyped-def]
    start = time.perf_counter()
    result = action()
    return time.perf_counter() - start, result


def synthetic_items(n: int) -> list[IndexedItem]:
    rng = np.random.default_rng(0)
    popularity = 1.0 / np.arange(1, len(UNITS) + 1) ** 0.8
    popularity /= popularity.sum()
    items = []
    for i in range(n):
        units = tuple(UNITS[j] for j in rng.choice(len(UNITS), size=int(rng.integers(1, 6)), replace=False,
                                                   p=popularity))
        items.append(IndexedItem(f"item-{i:06d}", units, f"question {i} about {' '.join(units)}",
                                 float(rng.gamma(2, 3)), float(rng.uniform(0, 100)),
                                 rng.standard_normal(DIMS).astype(np.float32)))
    return items


def bench_index(es_url: str, n: int) -> None:
    items = synthetic_items(n)
    embedded = EmbeddedSearchIndex(UNITS, DIMS)
    emb_s, _ = timed(lambda: (embedded.index_items(items), embedded.item_ids()))
    client = Elasticsearch(es_url, request_timeout=300)
    es = ElasticsearchSearchIndex.create(client, f"bench-{uuid.uuid4().hex[:8]}", UNITS, DIMS)
    es_s, _ = timed(lambda: es.index_items(items))
    print(f"index {n} items ({DIMS}-d): elasticsearch bulk {n / es_s:,.0f} items/s, "
          f"embedded build {n / emb_s:,.0f} items/s (ratio {emb_s / es_s:.3f})")
    rng = np.random.default_rng(1)
    pool = [u for u, _ in sorted(embedded.unit_counts().items(), key=lambda kv: -kv[1])[:60]]
    rankings = {f"j{j}": [pool[i] for i in rng.permutation(len(pool))[:30]] for j in range(3)}
    votes = aggregate_votes(rankings, UNITS, 10)
    emb_c, want = timed(lambda: embedded.ordered_candidates(list(votes.units), votes.consensus))
    es_c, got = timed(lambda: es.ordered_candidates(list(votes.units), votes.consensus))
    assert got == want
    print(f"candidate order, K1=10, {len(want)} candidates: elasticsearch {es_c * 1000:.0f} ms, "
          f"embedded {emb_c * 1000:.1f} ms (ratio {es_c / emb_c:.0f}x)")
    query = rng.standard_normal(DIMS)
    emb_k, _ = timed(lambda: embedded.nearest(query, 100))
    emb_k, _ = timed(lambda: embedded.nearest(query, 100))  # the first call builds the matrix
    es_k, _ = timed(lambda: es.nearest(query, 100))
    ann_k, _ = timed(lambda: es.approximate_nearest(query, 100))
    print(f"kNN top-100 of {n}: elasticsearch exact {es_k * 1000:.0f} ms, HNSW {ann_k * 1000:.0f} ms, "
          f"embedded {emb_k * 1000:.1f} ms")
    es.delete_index()
    client.close()


def bus_rates(bus: EventBus) -> tuple[float, float]:
    topic, group = f"bench-{uuid.uuid4().hex[:8]}", f"bench-{uuid.uuid4().hex[:8]}"
    bus.ensure_topic(topic, 4)
    payload = b"x" * 200
    headers = {"traceparent": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}

    def publish() -> None:
        for i in range(MESSAGES):
            bus.send(topic, payload, key=f"build-{i % 64}", headers=headers)
        bus.flush()

    publish_s, _ = timed(publish)
    consumer = bus.consumer(group, [topic])
    consumer.poll(1, 30.0)  # joins the group (session_timeout/2 on tansu): not part of the rate
    consumer.close()
    consumer = bus.consumer(group, [topic])
    first = consumer.poll(500, 30.0)

    def consume() -> int:
        got = len(first)
        while got < MESSAGES:
            batch = consumer.poll(500, 5.0)
            got += len(batch)
            consumer.commit()
        return got

    consume_s, _ = timed(consume)
    consumer.close()
    return MESSAGES / publish_s, (MESSAGES - len(first)) / consume_s


def bench_bus(bootstrap: str) -> None:
    kafka = KafkaEventBus(bootstrap)
    k_pub, k_con = bus_rates(kafka)
    kafka.close()
    m_pub, m_con = bus_rates(InMemoryEventBus())
    print(f"bus, {MESSAGES} x 200 B with traceparent: kafka/tansu publish {k_pub:,.0f} msg/s, consume+commit "
          f"{k_con:,.0f} msg/s; in-process {m_pub:,.0f} / {m_con:,.0f} msg/s (ratio {k_pub / m_pub:.3f})")


def store_rates(store: ObjectStore) -> tuple[float, float]:
    blob = os.urandom(10_000)
    put_s, _ = timed(lambda: [store.put_bytes(f"bench/{i:05d}", blob) for i in range(OBJECTS)])
    get_s, _ = timed(lambda: [store.get_bytes(f"bench/{i:05d}") for i in range(OBJECTS)])
    return OBJECTS / put_s, OBJECTS / get_s


def bench_store(s3, scratch: Path) -> None:
    minio = MinioObjectStore.connect(s3.endpoint, s3.access_key, s3.secret_key, f"bench-{uuid.uuid4().hex[:8]}")
    s_put, s_get = store_rates(minio)
    f_put, f_get = store_rates(FilesystemObjectStore(scratch / "store"))
    print(f"object store, {OBJECTS} x 10 KB: minio/seaweedfs put {s_put:,.0f}/s get {s_get:,.0f}/s; "
          f"filesystem put {f_put:,.0f}/s get {f_get:,.0f}/s (put ratio {s_put / f_put:.3f})")


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 5000
    print(f"machine: {os.cpu_count()} cores")
    with tempfile.TemporaryDirectory(prefix="scicustom-bench-") as tmp:
        work = Path(tmp)
        servers = []
        try:
            es = start_noida_elasticsearch(work)
            servers.append(es.process)
            kafka = start_tansu(work)
            servers.append(kafka.process)
            s3 = start_seaweedfs(work)
            servers.append(s3.process)
            bench_index(es.url, n)
            bench_bus(kafka.bootstrap)
            bench_store(s3, work)
        finally:
            for process in servers:
                process.stop()


if __name__ == "__main__":
    main()
