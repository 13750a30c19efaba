"""Paper ingestion over real servers: paper.submitted on Kafka (tansu) -> the parse and extract workers
-> items-imported -> the tag and index workers -> Elasticsearch (noida-db), papers and corpus on S3
(SeaweedFS). The cluster run gives the same instances, byte for byte, as the embedded run; a corrupt
paper is FAILED with its dead letter on Kafka and nothing of it is indexed."""

from __future__ import annotations

import json

from scicustom.app.papers.paper_records import PaperKeys, paper_status
from scicustom.app.papers.submission import submit_paper_bytes
from scicustom.bootstrap import Context
from scicustom.config import Settings
from scicustom.events.v1 import events_pb2 as ev
from scicustom.ingest.worker import IngestStageHandler
from scicustom.papers.worker import PaperStageHandler
from scicustom.workers.in_process import run_until
from scicustom.workers.paper_events import PaperSubmittedPublisher, RefusedPaperDeadLetters
from scicustom.workers.stage_consumer import WorkerOptions
from scicustom.workers.topics import INGEST_STAGES, PAPER_STAGES, Topics
from tests.support.hashing_embedder import HashingEmbedder
from tests.support.ingest_harness import read_values
from tests.support.real_papers import JATS, PDF, member
from tests.unit.ingest_pipeline.conftest import UNITS, KeywordTagger, LengthPerplexity, make_context

WAIT_S = 300.0


def _cluster(s3, kafka, es, tmp_path, name: str) -> Context:
    tmp_path.mkdir(parents=True, exist_ok=True)
    units = tmp_path / "units.json"
    units.write_text(json.dumps({"version": "t1", "knowledge_units": [
        {"id": u, "name": n, "domain": "d"} for u, n in UNITS]}), encoding="utf-8")
    ctx = Context(Settings(profile="cluster", home=tmp_path / "home", units_file=units, s3_endpoint=s3.endpoint,
                           s3_access_key=s3.access_key, s3_secret_key=s3.secret_key, s3_bucket=name,
                           kafka_bootstrap=kafka.bootstrap, elasticsearch_url=es.url, elasticsearch_index=name,
                           topic_prefix=name))  # type: ignore[arg-type]
    ctx.embedder = HashingEmbedder(384)  # type: ignore[misc]
    ctx.tagger = KeywordTagger()  # type: ignore[misc]
    ctx.perplexity = LengthPerplexity()  # type: ignore[misc]
    return ctx


def _ingest(ctx: Context, topics: Topics, papers: dict[str, bytes], options: WorkerOptions | None) -> list[str]:
    announce = PaperSubmittedPublisher(ctx.store, ctx.event_bus, topics)
    dead = RefusedPaperDeadLetters(ctx.event_bus, topics)
    ids = [submit_paper_bytes(ctx.store, announce, dead, name, data).paper_id for name, data in papers.items()]
    handlers = [PaperStageHandler(s, ctx, topics) for s in PAPER_STAGES] + \
        [IngestStageHandler(s, ctx, topics) for s in INGEST_STAGES]
    assert run_until(ctx.event_bus, topics, handlers,
                     lambda: all(paper_status(ctx.store, i).terminal for i in ids), WAIT_S, options)
    return ids


def test_papers_through_kafka_s3_and_elasticsearch(s3_server, kafka_server, elasticsearch_server, unique_name,
                                                   tmp_path):
    pdf = member("grobid", PDF)
    papers = {"pone.0046493.nxml": member("pubmed", JATS[0]), "cut.pdf": pdf[: len(pdf) // 3]}
    ctx = _cluster(s3_server, kafka_server, elasticsearch_server, tmp_path / "cluster", unique_name)
    topics = Topics(unique_name)
    for topic in topics.all():
        ctx.event_bus.ensure_topic(topic, 1)
    options = WorkerOptions(max_attempts=2, backoff_s=0.1, breaker_threshold=100, poll_timeout_s=0.2)
    good, bad = _ingest(ctx, topics, papers, options)

    status = paper_status(ctx.store, good)
    assert status.state == "indexed" and status.instances["qa"] > 5
    instances = [json.loads(line) for line in ctx.store.get_bytes(PaperKeys(good).instances("qa")).splitlines()]
    indexed = set(ctx.search_index.item_ids())
    assert {i["item_id"] for i in instances} <= indexed
    failed = paper_status(ctx.store, bad)
    assert failed.state == "failed" and "corrupt PDF" in failed.reason
    (letter,) = [ev.DeadLetter.FromString(v) for v in read_values(ctx.event_bus, topics.dead_letters("parse"), 1,
                                                                   60.0)]
    assert letter.error == failed.reason

    # Same code, same result: the embedded run writes the same instances and parse artifact.
    (tmp_path / "embedded").mkdir()
    embedded = make_context(tmp_path / "embedded")
    _ingest(embedded, Topics("t"), papers, None)
    for key in (PaperKeys(good).parsed, PaperKeys(good).instances("qa"), PaperKeys(good).report("qa")):
        assert embedded.store.get_bytes(key) == ctx.store.get_bytes(key)
    ctx.event_bus.close()
